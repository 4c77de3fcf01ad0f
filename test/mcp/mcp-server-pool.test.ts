// MCP servers reused across requests (src/mcp/server-pool.ts): a server is reused only for the
// very same principal, so a key whose grants change is served by a server made for the new grants,
// and concurrent requests of one key each get a server of their own.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeMcpServerPool } from "../../src/mcp/server-pool.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
  await makeMailbox(ctx, owner, "pooled");
});

afterAll(() => ctx.close());

async function listMailboxes(key: string): Promise<{ status: number; result: any }> {
  const response = await ctx.app.handle(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_mailboxes", arguments: {} } }),
    }),
  );
  return { status: response.status, result: ((await response.json()) as { result?: unknown }).result };
}

test("the pool hands a server back only to the same principal", () => {
  const pool = makeMcpServerPool(ctx.svc);
  const principal = {
    keyId: "key_a",
    accountId: "acc_a",
    plan: "free" as const,
    scope: "api" as const,
    mailboxId: null,
    canRead: true,
    canSend: true,
  };
  const first = pool.take(principal);
  pool.give(principal, first);
  expect(pool.take({ ...principal, canRead: false })).not.toBe(first);
  expect(pool.take({ ...principal, keyId: "key_b" })).not.toBe(first);
  expect(pool.take(principal)).toBe(first);
  // Taken: the next request of the same principal gets another.
  expect(pool.take(principal)).not.toBe(first);
});

test("repeated and concurrent calls answer the same list; a key that loses can_read is refused", async () => {
  const answers = await Promise.all(Array.from({ length: 8 }, () => listMailboxes(owner.key)));
  for (const answer of answers) {
    expect(answer.status).toBe(200);
    expect(answer.result.isError ?? false).toBe(false);
    expect(answer.result.structuredContent.mailboxes).toHaveLength(1);
  }
  expect((await listMailboxes(owner.key)).result.structuredContent.mailboxes).toHaveLength(1);

  await ctx.sql`update api_keys set can_read = false where id = ${owner.keyId}`;
  // The key cache hears of it through NOTIFY; then the changed grants select a new server.
  const deadline = Date.now() + 2000;
  let refused: { status: number; result: any } | null = null;
  while (Date.now() < deadline) {
    const answer = await listMailboxes(owner.key);
    if (answer.result?.isError) {
      refused = answer;
      break;
    }
    await Bun.sleep(10);
  }
  expect(refused).not.toBeNull();
  expect(JSON.stringify(refused!.result.structuredContent)).toContain("this api key cannot read messages");
});
