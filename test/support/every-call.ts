// One refusal asserted on every route of a surface: the security and error tests list the calls a
// key could make and expect the same answer from each, naming the call that answered otherwise.
import { expect } from "bun:test";

export type ApiCall = [method: string, path: string, body?: unknown];
type Ask = (key: string | null, method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** Makes every call with `key` and expects each to answer exactly `expected`. */
export async function expectEveryCall(ask: Ask, key: string | null, calls: ApiCall[], expected: { status: number; body: unknown }) {
  for (const [method, path, body] of calls) {
    const reply = await ask(key, method, path, body);
    expect({ call: `${method} ${path}`, status: reply.status, body: reply.body }).toEqual({ call: `${method} ${path}`, ...expected });
  }
}
