// Named consumers over polling: readers of one consumer get different events; a lease holds an
// event for one reader until it is acknowledged or runs out (then another reader gets it, with
// deliveries counted); acked_through moves only over a gap-free acknowledged prefix; a consumer
// resumes after being offline; mailbox scopes and keys are enforced like the message API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestContext();
});
afterAll(async () => ctx.close());

const post = (path: string, key: string, body: unknown) => ctx.request("POST", path, { key, body });
const claim = async (key: string, name: string, body: Record<string, unknown> = {}) => {
  const response = await post(`/api/v1/consumers/${name}/claim`, key, body);
  expect(response.status).toBe(200);
  return response.body.events as { cursor: string; event: any; deliveries: number; lease_expires_at: string }[];
};

describe("one consumer, several readers", () => {
  let account: Fixture;
  let mailbox: { id: string };
  const cursors: string[] = [];

  beforeAll(async () => {
    account = await makeAccount(ctx);
    mailbox = await makeMailbox(ctx, account, "workers");
    for (let i = 0; i < 10; i++)
      cursors.push((await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: `job${i}` })).cursor);
  });

  test("create is 201, then 200 with the same scope; a new consumer starts at the oldest event", async () => {
    const created = await post("/api/v1/consumers", account.key, { name: "billing" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "billing", mailbox_id: null, acked_through: "0" });
    const again = await post("/api/v1/consumers", account.key, { name: "billing" });
    expect(again.status).toBe(200);
    const otherScope = await post("/api/v1/consumers", account.key, { name: "billing", mailbox_id: mailbox.id });
    expect(otherScope.status).toBe(409);
  });

  test("concurrent readers each get different events, all of them, once", async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => claim(account.key, "billing", { limit: 3, lease_seconds: 30 })));
    const all = results.flat().map((item) => item.cursor);
    expect(new Set(all).size).toBe(all.length);
    // Cursors are opaque: compared as sets.
    expect(all.sort()).toEqual([...cursors].sort());
    expect(results.flat().every((item) => item.deliveries === 1)).toBe(true);
    expect(await claim(account.key, "billing")).toEqual([]);
  });

  test("acked_through moves over the acknowledged prefix only", async () => {
    const ack = async (list: string[]) => (await post("/api/v1/consumers/billing/ack", account.key, { cursors: list })).body;
    expect(await ack([cursors[1]!, cursors[2]!])).toEqual({ acked: 2, acked_through: "0" });
    expect(await ack([cursors[0]!])).toEqual({ acked: 1, acked_through: cursors[2] });
    // Acknowledging again is harmless.
    expect(await ack([cursors[0]!])).toEqual({ acked: 0, acked_through: cursors[2] });
    expect((await ack(cursors.slice(3))).acked_through).toBe(cursors[9]);
    expect((await ctx.request("GET", "/api/v1/consumers/billing", { key: account.key })).body.acked_through).toBe(cursors[9]);
  });

  test("an unacknowledged lease runs out and the event goes to the next reader, deliveries counted", async () => {
    const fresh = await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: "flaky" });
    const [first] = await claim(account.key, "billing", { lease_seconds: 1 });
    expect(first!.cursor).toBe(fresh.cursor);
    expect(await claim(account.key, "billing")).toEqual([]);
    await Bun.sleep(1200);
    const [second] = await claim(account.key, "billing");
    expect(second!.cursor).toBe(fresh.cursor);
    expect(second!.deliveries).toBe(2);
    expect((await post("/api/v1/consumers/billing/ack", account.key, { cursors: [fresh.cursor] })).body.acked_through).toBe(fresh.cursor);
  });

  test("a consumer offline for a day resumes where it stopped", async () => {
    const missed = [];
    for (let i = 0; i < 3; i++) missed.push(await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: `while away ${i}` }));
    await ctx.sql`update event_log set created_at = now() - interval '1 day' where id = any(${missed.map((event) => event.id)})`;
    const events = await claim(account.key, "billing", { limit: 10 });
    expect(events.map((item) => item.event.subject)).toEqual(["while away 0", "while away 1", "while away 2"]);
  });
});

describe("scopes and keys", () => {
  test("a mailbox consumer sees its mailbox only; a bound key cannot use an account-wide or other-mailbox consumer", async () => {
    const account = await makeAccount(ctx);
    const mine = await makeMailbox(ctx, account, "mine");
    const other = await makeMailbox(ctx, account, "other");
    await appendTestEvent(ctx.sql, account.accountId, other.id, { subject: "other" });
    await appendTestEvent(ctx.sql, account.accountId, mine.id, { subject: "mine" });
    const bound = await makeKey(ctx, { accountId: account.accountId, scope: "api", mailboxId: mine.id });
    // A bound key's consumer is scoped to its mailbox even when it does not say so.
    expect((await post("/api/v1/consumers", bound, { name: "agent" })).body.mailbox_id).toBe(mine.id);
    expect((await claim(bound, "agent")).map((item) => item.event.subject)).toEqual(["mine"]);
    expect((await post("/api/v1/consumers", bound, { name: "x", mailbox_id: other.id })).status).toBe(403);
    await post("/api/v1/consumers", account.key, { name: "everything" });
    const hidden = await post("/api/v1/consumers/everything/claim", bound, {});
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: "not found" });
    expect((await ctx.request("GET", "/api/v1/consumers/missing", { key: bound })).body).toEqual({ error: "not found" });
  });

  test("another account cannot see or use the consumer, and names, limits and keys are checked", async () => {
    const account = await makeAccount(ctx);
    await post("/api/v1/consumers", account.key, { name: "private" });
    const stranger = await makeAccount(ctx);
    expect((await post("/api/v1/consumers/private/claim", stranger.key, {})).status).toBe(404);
    expect((await post("/api/v1/consumers/private/ack", stranger.key, { cursors: ["0"] })).status).toBe(404);
    expect((await post("/api/v1/consumers", account.key, { name: "bad name!" })).status).toBe(400);
    expect((await post("/api/v1/consumers", account.key, { name: "x", mailbox_id: "mbx_nope" })).status).toBe(404);
    expect((await post("/api/v1/consumers/private/claim", account.key, { limit: 0 })).status).toBe(400);
    expect((await post("/api/v1/consumers/private/ack", account.key, { cursors: ["abc"] })).status).toBe(400);
    expect((await post("/api/v1/consumers/private/ack", account.key, { cursors: [] })).status).toBe(400);
    const blind = await makeKey(ctx, { accountId: account.accountId, scope: "api", canRead: false });
    expect((await post("/api/v1/consumers/private/claim", blind, {})).body.code).toBe("key_scope");
    expect((await ctx.request("POST", "/api/v1/consumers/private/claim", { body: {} })).status).toBe(401);
  });
});
