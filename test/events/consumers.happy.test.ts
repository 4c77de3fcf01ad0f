// The consumers routes' main flows with their exact shapes: create (201) and open again (200), get,
// claim (each item exactly cursor, event, lease_expires_at, deliveries), ack ({acked,
// acked_through}), and the full cycle of claiming everything, acknowledging it and finding nothing
// left. consumers.test.ts covers leases running out, concurrent readers and scopes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";

let ctx: TestContext;
let account: Fixture;
let mailbox: { id: string };
const appended: { id: string; cursor: string }[] = [];

const req = (method: string, path: string, body?: unknown) => ctx.request(method, `/api/v1${path}`, { key: account.key, body });

beforeAll(async () => {
  ctx = await makeTestContext();
  account = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, account, "consumers");
  for (const subject of ["a", "b", "c"]) appended.push(await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject }));
});

afterAll(async () => {
  await ctx.close();
});

describe("a consumer's life", () => {
  let created: Record<string, unknown>;

  test("create is 201 with exactly name, mailbox_id, acked_through and created_at", async () => {
    const response = await req("POST", "/consumers", { name: "billing.worker_1", mailbox_id: mailbox.id });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["acked_through", "created_at", "mailbox_id", "name"]);
    expect(response.body).toMatchObject({ name: "billing.worker_1", mailbox_id: mailbox.id });
    expect(typeof response.body.acked_through).toBe("string");
    expect(Number.isNaN(Date.parse(response.body.created_at))).toBe(false);
    created = response.body;
  });

  test("opening it again is 200 with the same consumer; GET answers the same", async () => {
    const again = await req("POST", "/consumers", { name: "billing.worker_1", mailbox_id: mailbox.id });
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: created });
    const got = await req("GET", "/consumers/billing.worker_1");
    expect({ status: got.status, body: got.body }).toEqual({ status: 200, body: created });
  });

  test("claim leases the oldest events first, each item with exactly its four fields", async () => {
    const response = await req("POST", "/consumers/billing.worker_1/claim", { limit: 2, lease_seconds: 600 });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["events"]);
    const items = response.body.events as Record<string, any>[];
    for (const item of items) expect(Object.keys(item).sort()).toEqual(["cursor", "deliveries", "event", "lease_expires_at"]);
    expect(items.map((item) => [item.cursor, item.event.event_id, item.deliveries])).toEqual([
      [appended[0]!.cursor, appended[0]!.id, 1],
      [appended[1]!.cursor, appended[1]!.id, 1],
    ]);
    // A lease of 600 s ends in the future (a generous bound: no timing is asserted).
    for (const item of items) expect(Date.parse(item.lease_expires_at)).toBeGreaterThan(Date.now());
  });

  test("a second claim gets the event not yet leased", async () => {
    const response = await req("POST", "/consumers/billing.worker_1/claim", { lease_seconds: 600 });
    expect(response.body.events.map((item: { cursor: string }) => item.cursor)).toEqual([appended[2]!.cursor]);
  });

  test("ack answers exactly acked and acked_through; acking again is idempotent", async () => {
    const cursors = appended.map((a) => a.cursor);
    const response = await req("POST", "/consumers/billing.worker_1/ack", { cursors });
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { acked: 3, acked_through: cursors[2] } });
    const again = await req("POST", "/consumers/billing.worker_1/ack", { cursors });
    expect(again.status).toBe(200);
    expect(again.body.acked_through).toBe(cursors[2]);
    expect((await req("GET", "/consumers/billing.worker_1")).body.acked_through).toBe(cursors[2]);
  });

  test("with everything acknowledged, a claim is an empty list; a new event is the next one claimed", async () => {
    expect((await req("POST", "/consumers/billing.worker_1/claim", {})).body).toEqual({ events: [] });
    const next = await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: "d" });
    const response = await req("POST", "/consumers/billing.worker_1/claim", {});
    expect(response.body.events.map((item: { cursor: string; deliveries: number }) => [item.cursor, item.deliveries])).toEqual([
      [next.cursor, 1],
    ]);
  });

  test("an account-wide consumer is created with mailbox_id null", async () => {
    const response = await req("POST", "/consumers", { name: "everything" });
    expect(response.status).toBe(201);
    expect(response.body.mailbox_id).toBeNull();
  });
});
