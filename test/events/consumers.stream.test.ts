// A named consumer over the live streams: two SSE readers of one consumer split its events, each
// holding at most `prefetch` unacknowledged; acknowledging (POST, or a WebSocket frame) lets more
// flow; every event is delivered once across the readers; a reader that disconnects without
// acknowledging loses its events to the other when the leases run out.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { drainEventHub } from "../../src/core/events/hub.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent, openSse } from "../support/events.ts";

let ctx: TestContext;
let server: HttpServer;
let base: string;

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0", EVENT_LEASE_S: "2" });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await drainEventHub(ctx.svc);
  await server.stop();
  await ctx.close();
});

test("two SSE readers of one consumer share its events, prefetch-bounded, each event once", async () => {
  const account = await makeAccount(ctx);
  const mailbox = await makeMailbox(ctx, account, "shared");
  await ctx.request("POST", "/api/v1/consumers", { key: account.key, body: { name: "workers" } });
  const url = `${base}/api/v1/events/stream?consumer=workers&prefetch=2`;
  const [a, b] = [await openSse(url, account.key), await openSse(url, account.key)];
  expect([a.status, b.status]).toEqual([200, 200]);
  const appended = [];
  for (let i = 0; i < 8; i++) appended.push(await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: `w${i}` }));
  await a.waitFor(2);
  await b.waitFor(2);
  await Bun.sleep(300);
  // Neither holds more than its prefetch while nothing is acknowledged.
  expect([a.frames.length, b.frames.length]).toEqual([2, 2]);
  const ack = (cursors: string[]) => ctx.request("POST", "/api/v1/consumers/workers/ack", { key: account.key, body: { cursors } });
  // Each reader acknowledges what it got until everything is through.
  const acked = new Set<string>();
  for (let round = 0; round < 50 && acked.size < 8; round++) {
    for (const reader of [a, b]) {
      const fresh = reader.frames.map((frame) => frame.id!).filter((id) => !acked.has(id));
      if (fresh.length) await ack(fresh);
      for (const id of fresh) acked.add(id);
    }
    await Bun.sleep(50);
  }
  const all = [...a.frames, ...b.frames].map((frame) => frame.id!);
  expect(new Set(all).size).toBe(all.length);
  expect(all.sort()).toEqual(appended.map((event) => event.cursor).sort());
  expect(a.frames.length).toBeGreaterThan(0);
  expect(b.frames.length).toBeGreaterThan(0);
  expect((await ctx.request("GET", "/api/v1/consumers/workers", { key: account.key })).body.acked_through).toBe(appended.at(-1)!.cursor);
  a.close();
  b.close();
});

test("a reader that leaves without acknowledging: its events go to the other once the lease runs out", async () => {
  const account = await makeAccount(ctx);
  const mailbox = await makeMailbox(ctx, account, "failover");
  await ctx.request("POST", "/api/v1/consumers", { key: account.key, body: { name: "failover" } });
  const url = `${base}/api/v1/events/stream?consumer=failover&prefetch=5`;
  const quitter = await openSse(url, account.key);
  const event = await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: "orphaned" });
  const [got] = await quitter.waitFor(1);
  expect(got!.id).toBe(event.cursor);
  quitter.close();
  const survivor = await openSse(url, account.key);
  // EVENT_LEASE_S is 2: the lease runs out, the survivor's next look (every second) takes it.
  const [again] = await survivor.waitFor(1, 6000);
  expect(again!.id).toBe(event.cursor);
  survivor.close();
});

test("over the WebSocket: acknowledge with an {ack} frame", async () => {
  const account = await makeAccount(ctx);
  const mailbox = await makeMailbox(ctx, account, "socketed");
  await ctx.request("POST", "/api/v1/consumers", { key: account.key, body: { name: "socket" } });
  const frames: any[] = [];
  const ws = new WebSocket(`${base.replace("http", "ws")}/api/v1/events/ws?consumer=socket&prefetch=1&access_token=${account.key}`);
  ws.addEventListener("message", (message) => frames.push(JSON.parse(String(message.data))));
  await new Promise((resolve) => ws.addEventListener("open", resolve));
  const events = [];
  for (let i = 0; i < 3; i++) events.push(await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: `ws${i}` }));
  const eventsSeen = () => frames.filter((frame) => frame.event).map((frame) => frame.cursor);
  for (let i = 0; i < 3; i++) {
    for (let waited = 0; eventsSeen().length < i + 1; waited += 20) {
      if (waited > 30_000) throw new Error(`no event ${i}: ${JSON.stringify(frames)}`);
      await Bun.sleep(20);
    }
    await Bun.sleep(100);
    expect(eventsSeen().length).toBe(i + 1); // prefetch 1: nothing more until the ack
    ws.send(JSON.stringify({ ack: [eventsSeen()[i]] }));
  }
  expect(eventsSeen()).toEqual(events.map((event) => event.cursor));
  // Every acknowledgement answered: waited for, not assumed after a fixed pause.
  for (let waited = 0; frames.filter((frame) => frame.acked === 1).length < 3 && waited < 15_000; waited += 50) await Bun.sleep(50);
  expect(frames.filter((frame) => frame.acked === 1).length).toBe(3);
  ws.close();
});

test("an unknown consumer is 404 before the stream opens", async () => {
  const account = await makeAccount(ctx);
  const response = await openSse(`${base}/api/v1/events/stream?consumer=nobody`, account.key);
  expect(response.status).toBe(404);
});
