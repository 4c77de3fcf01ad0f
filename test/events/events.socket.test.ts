// The WebSocket at /api/v1/events/ws over real HTTP: events in order as JSON frames, resume with
// ?after, a bearer header or ?access_token, isolation between accounts and bound keys, and
// refusal before the upgrade for a bad key.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { drainEventHub } from "../../src/core/events/hub.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";

let ctx: TestContext;
let server: HttpServer;
let base: string;

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0", EVENT_HEARTBEAT_MS: "200" });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `ws://127.0.0.1:${server.port}/api/v1/events/ws`;
});
afterAll(async () => {
  await drainEventHub(ctx.svc);
  await server.stop();
  await ctx.close();
});

type Socket = {
  frames: any[];
  heartbeats: number;
  closed: Promise<{ code: number; reason: string }>;
  waitFor(count: number): Promise<any[]>;
  close(): void;
};

function openSocket(url: string, headers: Record<string, string> = {}): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // Bun's WebSocket client accepts headers, as server-side agents need.
    const ws = new WebSocket(url, { headers } as never);
    const socket: Socket = {
      frames: [],
      heartbeats: 0,
      closed: new Promise((done) => ws.addEventListener("close", (event) => done({ code: event.code, reason: event.reason }))),
      waitFor: async (count) => {
        for (let waited = 0; socket.frames.length < count; waited += 20) {
          if (waited > 10_000) throw new Error(`expected ${count} frames, got ${socket.frames.length}`);
          await Bun.sleep(20);
        }
        return socket.frames.slice();
      },
      close: () => ws.close(),
    };
    ws.addEventListener("message", (event) => {
      const frame = JSON.parse(String(event.data));
      if (frame.heartbeat) socket.heartbeats++;
      else socket.frames.push(frame);
    });
    ws.addEventListener("open", () => resolve(socket));
    ws.addEventListener("error", () => reject(new Error("websocket failed to open")));
  });
}

test("events arrive in order as {cursor, event} frames, with heartbeats; a reconnect with ?after resumes exactly", async () => {
  const account = await makeAccount(ctx);
  const mailbox = await makeMailbox(ctx, account, "socket");
  const first = await openSocket(`${base}?after=0`, { authorization: `Bearer ${account.key}` });
  const appended = [];
  for (let i = 0; i < 10; i++) appended.push(await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: `s${i}` }));
  const frames = await first.waitFor(10);
  expect(frames.map((frame) => frame.cursor)).toEqual(appended.map((event) => event.cursor));
  expect(frames.map((frame) => frame.event.subject)).toEqual(appended.map((_, i) => `s${i}`));
  expect(frames[0].event.event_id).toBe(appended[0]!.id);
  // The next heartbeat, however busy the machine: waited for, not assumed after a fixed pause.
  for (let waited = 0; first.heartbeats === 0 && waited < 15_000; waited += 50) await Bun.sleep(50);
  expect(first.heartbeats).toBeGreaterThan(0);
  first.close();
  await first.closed;
  for (let i = 10; i < 15; i++) appended.push(await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: `s${i}` }));
  // A browser cannot set headers: the key rides in the query.
  const second = await openSocket(`${base}?after=${frames.at(-1).cursor}&access_token=${account.key}`);
  const rest = await second.waitFor(5);
  await Bun.sleep(200);
  expect(second.frames.length).toBe(5);
  expect(rest.map((frame) => frame.event.subject)).toEqual(["s10", "s11", "s12", "s13", "s14"]);
  second.close();
});

test("isolation: a bound key's socket sees its mailbox only; another account's sees none", async () => {
  const owner = await makeAccount(ctx);
  const mine = await makeMailbox(ctx, owner, "mine");
  const theirs = await makeMailbox(ctx, owner, "theirs");
  const stranger = await makeAccount(ctx);
  const bound = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: mine.id });
  const boundSocket = await openSocket(`${base}?after=0&access_token=${bound}`);
  const strangerSocket = await openSocket(`${base}?after=0&access_token=${stranger.key}`);
  await appendTestEvent(ctx.sql, owner.accountId, theirs.id, { subject: "theirs" });
  await appendTestEvent(ctx.sql, owner.accountId, mine.id, { subject: "mine" });
  expect((await boundSocket.waitFor(1)).map((frame) => frame.event.subject)).toEqual(["mine"]);
  await Bun.sleep(300);
  expect(boundSocket.frames.length).toBe(1);
  expect(strangerSocket.frames.length).toBe(0);
  boundSocket.close();
  strangerSocket.close();
});

test("a bad key or another mailbox is refused before the upgrade", async () => {
  const account = await makeAccount(ctx);
  const other = await makeMailbox(ctx, account, "refused");
  const mine = await makeMailbox(ctx, account, "bound");
  const bound = await makeKey(ctx, { accountId: account.accountId, scope: "api", mailboxId: mine.id });
  const http = base.replace("ws://", "http://");
  const upgrade = {
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  };
  const noKey = await fetch(http, { headers: upgrade });
  expect(noKey.status).toBe(401);
  expect(await noKey.json()).toEqual({ error: "missing bearer token" });
  expect((await fetch(`${http}?access_token=svc_wrong`, { headers: upgrade })).status).toBe(401);
  const wrongMailbox = await fetch(`${http}?mailbox_id=${other.id}`, { headers: { ...upgrade, authorization: `Bearer ${bound}` } });
  expect(wrongMailbox.status).toBe(403);
  await expect(openSocket(`${base}?access_token=svc_wrong`)).rejects.toThrow();
});

test("a WebSocket client that stops reading is disconnected once its backlog stays over the bound", async () => {
  const slow = await makeTestContext({ HTTP_PORT: "0", EVENT_STREAM_MAX_QUEUE_BYTES: "65536", EVENT_STREAM_STALL_MS: "500" });
  const slowServer = startHttpServer(slow.svc, slow.app);
  try {
    const account = await makeAccount(slow);
    const mailbox = await makeMailbox(slow, account, "slowsocket");
    const net = await import("node:net");
    const socket = net.connect(slowServer.port, "127.0.0.1");
    let closed = false;
    let received = 0;
    socket.on("data", (chunk: Buffer) => void (received += chunk.length));
    socket.on("close", () => void (closed = true));
    socket.on("error", () => {});
    socket.write(
      `GET /api/v1/events/ws?after=0&access_token=${account.key} HTTP/1.1\r\nhost: localhost\r\nconnection: Upgrade\r\nupgrade: websocket\r\n` +
        "sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    );
    const { eventHubFor } = await import("../../src/core/events/hub.ts");
    const hub = eventHubFor(slow.svc);
    for (let waited = 0; hub.size() === 0 && waited < 5000; waited += 20) await Bun.sleep(20);
    expect(hub.size()).toBe(1);
    socket.pause();
    const body = "y".repeat(100_000);
    for (let i = 0; i < 300; i++) await appendTestEvent(slow.sql, account.accountId, mailbox.id, { body });
    for (let waited = 0; hub.size() > 0 && waited < 15_000; waited += 50) await Bun.sleep(50);
    expect(hub.size()).toBe(0);
    socket.resume();
    for (let waited = 0; !closed && waited < 5000; waited += 50) await Bun.sleep(50);
    expect(closed).toBe(true);
    expect(received).toBeLessThan(300 * 100_000);
  } finally {
    await drainEventHub(slow.svc);
    await slowServer.stop();
    await slow.close();
  }
}, 60_000);
