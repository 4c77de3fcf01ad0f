// Event cursors are opaque and belong to one account: they do not show positions in the log every
// account shares (whose gaps would show the others' volume), one event has one cursor wherever it
// is read, resuming works everywhere, and another account's cursor gets the answer of a malformed
// one. Decimal cursors handed out before the change keep working up to the upgrade's position.
// Over real HTTP and WebSocket.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeEventCursors } from "../../src/core/events/cursor.ts";
import { drainEventHub } from "../../src/core/events/hub.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent, openSse, rawRequest } from "../support/events.ts";

let ctx: TestContext;
let server: HttpServer;
let base: string;
let alice: Fixture;
let bob: Fixture;
let aliceMailbox: { id: string; address: string };
const aliceEvents: { cursor: string; position: string; subject: string }[] = [];
const bobEvents: { cursor: string; position: string }[] = [];
/** the newest position at the (simulated) upgrade: decimal cursors up to it still work */
let legacyMax: bigint;

const invalid = { error: "cursor must be a cursor returned by this API" };

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `http://127.0.0.1:${server.port}`;
  alice = await makeAccount(ctx);
  bob = await makeAccount(ctx);
  aliceMailbox = await makeMailbox(ctx, alice, "alice");
  const bobMailbox = await makeMailbox(ctx, bob, "bob");
  // Before the upgrade: two events of each account, interleaved, handed out as decimal positions.
  // sql/0045 records the newest position at an upgrade; the first use of cursors reads it.
  const [{ max }] = await ctx.sql`select coalesce(max(position), 0)::text as max from event_log`;
  legacyMax = BigInt(max) + 4n;
  await ctx.sql`update service_secrets set value = ${String(legacyMax)} where name = 'event_cursor_legacy_max'`;
  for (let i = 0; i < 2; i++) {
    await appendTestEvent(ctx.sql, alice.accountId, aliceMailbox.id, { subject: `old${i}` });
    await appendTestEvent(ctx.sql, bob.accountId, bobMailbox.id, { subject: "bob" });
  }
  const [{ now }] = await ctx.sql`select max(position)::text as now from event_log`;
  expect(BigInt(now)).toBe(legacyMax);
  // After it: alice and bob interleaved, so alice's positions have gaps bob's events fill.
  for (let i = 0; i < 4; i++) {
    const a = await appendTestEvent(ctx.sql, alice.accountId, aliceMailbox.id, { subject: `new${i}` });
    aliceEvents.push({ cursor: a.cursor, position: a.position, subject: `new${i}` });
    bobEvents.push(await appendTestEvent(ctx.sql, bob.accountId, bobMailbox.id, { subject: "bob" }));
  }
});
afterAll(async () => {
  await drainEventHub(ctx.svc);
  await server.stop();
  await ctx.close();
});

const get = (path: string, key: string, headers: Record<string, string> = {}) => ctx.request("GET", path, { key, headers });

describe("what a cursor shows", () => {
  test("opaque: 22 base64url characters, one per event", async () => {
    for (const event of aliceEvents) expect(event.cursor).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(aliceEvents.map((event) => event.cursor)).size).toBe(aliceEvents.length);
  });

  test("one event has one cursor: the log, SSE ids, WebSocket frames and a consumer's claim agree", async () => {
    const listed = (await get("/api/v1/events?after=0&limit=100", alice.key)).body.events;
    const fresh = listed.filter((item: any) => item.event.subject?.startsWith("new"));
    expect(fresh.map((item: any) => item.cursor)).toEqual(aliceEvents.map((event) => event.cursor));

    const sse = await openSse(`${base}/api/v1/events/stream?after=0`, alice.key);
    const frames = await sse.waitFor(6);
    sse.close();
    expect(frames.slice(2).map((frame) => frame.id)).toEqual(aliceEvents.map((event) => event.cursor));

    const ws = new WebSocket(`${base.replace("http", "ws")}/api/v1/events/ws?after=0&access_token=${alice.key}`);
    const got: any[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener("message", (message) => {
        const frame = JSON.parse(String(message.data));
        if (frame.cursor) got.push(frame.cursor);
        if (got.length === 6) resolve();
      });
      ws.addEventListener("error", reject);
      setTimeout(() => reject(new Error(`only ${got.length} frames`)), 15_000);
    });
    ws.close();
    expect(got.slice(2)).toEqual(aliceEvents.map((event) => event.cursor));

    await ctx.request("POST", "/api/v1/consumers", { key: alice.key, body: { name: "agree" } });
    const claimed = await ctx.request("POST", "/api/v1/consumers/agree/claim", { key: alice.key, body: { limit: 10 } });
    expect(claimed.body.events.slice(2).map((item: any) => item.cursor)).toEqual(aliceEvents.map((event) => event.cursor));
  });

  test("the same position gives each account a different cursor, and the key decides nothing else", () => {
    const cursors = makeEventCursors("secret", 0n);
    expect(cursors.encode("acc_a", "7")).not.toBe(cursors.encode("acc_b", "7"));
    expect(cursors.decode("acc_a", cursors.encode("acc_a", "7"))).toBe("7");
    expect(makeEventCursors("another secret", 0n).encode("acc_a", "7")).not.toBe(cursors.encode("acc_a", "7"));
    expect(cursors.encode("acc_a", "0")).toBe("0");
  });
});

describe("resuming", () => {
  test("after=, next_cursor and Last-Event-ID resume exactly after the event", async () => {
    const page = await get(`/api/v1/events?after=${aliceEvents[1]!.cursor}`, alice.key);
    expect(page.body.events.map((item: any) => item.event.subject)).toEqual(["new2", "new3"]);
    expect(page.body.next_cursor).toBe(aliceEvents[3]!.cursor);
    const empty = await get(`/api/v1/events?after=${page.body.next_cursor}`, alice.key);
    expect(empty.body).toEqual({ events: [], next_cursor: aliceEvents[3]!.cursor });

    const sse = await openSse(`${base}/api/v1/events/stream`, alice.key, { "last-event-id": aliceEvents[2]!.cursor });
    const [frame] = await sse.waitFor(1);
    sse.close();
    expect(JSON.parse(frame!.data).subject).toBe("new3");
  });

  test("a stream opened without a cursor names its starting point as a cursor of the account", async () => {
    const response = await fetch(`${base}/api/v1/events/stream`, { headers: { authorization: `Bearer ${alice.key}` } });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!/id: .+\n\n/.test(text)) text += (await reader.read()).value ?? "";
    await reader.cancel();
    expect(/id: (.+)\n\n/.exec(text)![1]).toBe(aliceEvents[3]!.cursor);
  });

  test("decimal cursors handed out before the upgrade keep working; a larger decimal is refused", async () => {
    const oldPage = await get("/api/v1/events?after=0", alice.key);
    const oldPositions = (
      await ctx.sql`select position::text from event_log where account_id = ${alice.accountId} and position <= ${String(legacyMax)}::bigint order by position`
    ).map((row) => row.position as string);
    expect(oldPositions.length).toBe(2);
    expect(oldPage.body.events.length).toBe(6);
    const resumed = await get(`/api/v1/events?after=${oldPositions[0]}`, alice.key);
    expect(resumed.status).toBe(200);
    expect(resumed.body.events.map((item: any) => item.event.subject)).toEqual(["old1", "new0", "new1", "new2", "new3"]);
    expect((await get(`/api/v1/events?after=${legacyMax}`, alice.key)).body.events.length).toBe(4);
    // Past the upgrade a decimal would let a client probe where its events fall in the shared log.
    const probe = await get(`/api/v1/events?after=${legacyMax + 1n}`, alice.key);
    expect({ status: probe.status, body: probe.body }).toEqual({ status: 400, body: invalid });
  });
});

describe("another account's cursor is refused like a malformed one", () => {
  const foreign = () => bobEvents[1]!.cursor;

  test("GET /api/v1/events, SSE ?after and Last-Event-ID, the WebSocket, the wait route and acknowledgements", async () => {
    const malformed = await get("/api/v1/events?after=not-a-cursor", alice.key);
    expect({ status: malformed.status, body: malformed.body }).toEqual({ status: 400, body: invalid });
    const refused = await get(`/api/v1/events?after=${foreign()}`, alice.key);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 400, body: invalid });

    for (const request of [
      () => fetch(`${base}/api/v1/events/stream?after=${foreign()}`, { headers: { authorization: `Bearer ${alice.key}` } }),
      () => fetch(`${base}/api/v1/events/stream`, { headers: { authorization: `Bearer ${alice.key}`, "last-event-id": foreign() } }),
    ]) {
      const response = await request();
      expect({ status: response.status, body: await response.json() }).toEqual({ status: 400, body: invalid });
    }

    const upgrade = await rawRequest(server.port, { path: `/api/v1/events/ws?after=${foreign()}`, key: alice.key, upgrade: true });
    expect(upgrade.status).toBe(400);
    expect(upgrade.text).toContain(JSON.stringify(invalid));

    const waited = await get(`/api/v1/messages/wait?mailbox_id=${aliceMailbox.id}&after=${foreign()}&timeout_s=0`, alice.key);
    expect({ status: waited.status, body: waited.body }).toEqual({ status: 400, body: invalid });

    await ctx.request("POST", "/api/v1/consumers", { key: alice.key, body: { name: "foreign" } });
    const acked = await ctx.request("POST", "/api/v1/consumers/foreign/ack", { key: alice.key, body: { cursors: [foreign()] } });
    expect({ status: acked.status, body: acked.body }).toEqual({ status: 400, body: invalid });
  });

  test("a cursor with one character changed is refused the same way", async () => {
    const cursor = aliceEvents[0]!.cursor;
    const changed = (cursor[0] === "A" ? "B" : "A") + cursor.slice(1);
    const response = await get(`/api/v1/events?after=${changed}`, alice.key);
    expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: invalid });
  });
});
