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

type AskRaw = (key: string, method: string, path: string, body?: unknown) => Promise<{ status: number; text: string; headers: Headers }>;

/**
 * Makes each call with `key` beside its counterpart on an id that does not exist (`missingCalls`,
 * in the same order) and expects the two answers to be the same 404, byte for byte, with the same
 * content type: a key learns nothing from an id it may not see.
 */
export async function expectSameAsMissing(ask: AskRaw, key: string, calls: ApiCall[], missingCalls: ApiCall[], notFound: string) {
  expect(missingCalls.length).toBe(calls.length);
  for (const [index, [method, path, body]] of calls.entries()) {
    const [missingMethod, missingPath, missingBody] = missingCalls[index]!;
    const missing = await ask(key, missingMethod, missingPath, missingBody);
    const reply = await ask(key, method, path, body);
    const call = `${method} ${path}`;
    expect({ call, status: reply.status, text: reply.text }).toEqual({ call, status: 404, text: notFound });
    expect({ call, text: missing.text, type: missing.headers.get("content-type") }).toEqual({
      call,
      text: reply.text,
      type: reply.headers.get("content-type"),
    });
  }
}
