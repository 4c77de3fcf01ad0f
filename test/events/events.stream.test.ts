// GET /api/v1/events/stream over real HTTP: order, resume with Last-Event-ID without loss or
// repeats, isolation between accounts and bound keys, fan-out between two API instances over one
// database (each with its own LISTEN connection), SMTP to stream end to end, a client that stops
// reading (disconnected, memory bounded), and the drain that shutdown runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { drainEventHub, eventHubFor } from "../../src/core/events/hub.ts";
import { makeApp } from "../../src/http/app.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent, openSse } from "../support/events.ts";
import { sendMail, servicesWith } from "../support/smtp-client.ts";
import { type Stack, startStack, stopStack } from "../support/stack.ts";

let stack: Stack;
let server: HttpServer;
let base: string;

beforeAll(async () => {
  stack = await startStack({ HTTP_PORT: "0", EVENT_HEARTBEAT_MS: "200" });
  server = startHttpServer(stack.ctx.svc, stack.ctx.app);
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await drainEventHub(stack.ctx.svc);
  await server.stop();
  await stopStack(stack);
});

const subjects = (frames: { data: string }[]) => frames.map((frame) => JSON.parse(frame.data).subject);

describe("one account's stream", () => {
  let account: Fixture;
  let mailbox: { id: string; address: string };
  beforeAll(async () => {
    account = await makeAccount(stack.ctx);
    mailbox = await makeMailbox(stack.ctx, account, "streamed");
  });

  test("opened without a cursor: only new events, in order, with id, event type and heartbeats", async () => {
    await appendTestEvent(stack.ctx.sql, account.accountId, mailbox.id, { subject: "before" });
    const client = await openSse(`${base}/api/v1/events/stream`, account.key);
    expect(client.status).toBe(200);
    expect(client.headers.get("content-type")).toContain("text/event-stream");
    await Bun.sleep(100);
    const appended = [];
    for (let i = 0; i < 20; i++)
      appended.push(await appendTestEvent(stack.ctx.sql, account.accountId, mailbox.id, { subject: `live${i}` }));
    const frames = await client.waitFor(20);
    expect(subjects(frames)).toEqual(appended.map((_, i) => `live${i}`));
    expect(frames.map((frame) => frame.id)).toEqual(appended.map((event) => event.cursor));
    expect(frames.every((frame) => frame.event === "message.received")).toBe(true);
    expect(JSON.parse(frames[0]!.data).event_id).toBe(appended[0]!.id);
    // The next heartbeat, however busy the machine: waited for, not assumed after a fixed pause.
    for (let waited = 0; !client.comments.includes("heartbeat") && waited < 15_000; waited += 50) await Bun.sleep(50);
    expect(client.comments).toContain("heartbeat");
    client.close();
  });

  test("resume with Last-Event-ID after a disconnect: everything missed, nothing twice", async () => {
    const start = await appendTestEvent(stack.ctx.sql, account.accountId, mailbox.id, { subject: "r-start" });
    const first = await openSse(`${base}/api/v1/events/stream?after=${start.cursor}`, account.key);
    for (let i = 0; i < 5; i++) await appendTestEvent(stack.ctx.sql, account.accountId, mailbox.id, { subject: `r${i}` });
    const seen = await first.waitFor(5);
    first.close();
    // Events while disconnected, then a reconnect from the last id seen.
    for (let i = 5; i < 10; i++) await appendTestEvent(stack.ctx.sql, account.accountId, mailbox.id, { subject: `r${i}` });
    const second = await openSse(`${base}/api/v1/events/stream`, account.key, { "last-event-id": seen.at(-1)!.id! });
    for (let i = 10; i < 15; i++) await appendTestEvent(stack.ctx.sql, account.accountId, mailbox.id, { subject: `r${i}` });
    const rest = await second.waitFor(10);
    await Bun.sleep(200);
    expect([...subjects(seen), ...subjects(second.frames)]).toEqual(Array.from({ length: 15 }, (_, i) => `r${i}`));
    expect(rest.length).toBe(10);
    second.close();
  });

  test("errors: no key 401, bad cursor 400, can_read false 403", async () => {
    expect((await fetch(`${base}/api/v1/events/stream`)).status).toBe(401);
    const bad = await openSse(`${base}/api/v1/events/stream`, account.key, { "last-event-id": "x1" });
    expect(bad.status).toBe(400);
    const blind = await makeKey(stack.ctx, { accountId: account.accountId, scope: "api", canRead: false });
    expect((await openSse(`${base}/api/v1/events/stream`, blind)).status).toBe(403);
  });
});

test("isolation: another account and another mailbox's bound key see nothing of it", async () => {
  const owner = await makeAccount(stack.ctx);
  const watched = await makeMailbox(stack.ctx, owner, "watched");
  const other = await makeMailbox(stack.ctx, owner, "other");
  const stranger = await makeAccount(stack.ctx);
  const strangerBox = await makeMailbox(stack.ctx, stranger, "stranger");
  const bound = await makeKey(stack.ctx, { accountId: owner.accountId, scope: "api", mailboxId: watched.id });

  const ownerStream = await openSse(`${base}/api/v1/events/stream?after=0`, owner.key);
  const boundStream = await openSse(`${base}/api/v1/events/stream?after=0`, bound);
  const strangerStream = await openSse(`${base}/api/v1/events/stream?after=0`, stranger.key);
  const denied = await openSse(`${base}/api/v1/events/stream?mailbox_id=${other.id}`, bound);
  expect(denied.status).toBe(403);

  await appendTestEvent(stack.ctx.sql, owner.accountId, watched.id, { subject: "w1" });
  await appendTestEvent(stack.ctx.sql, owner.accountId, other.id, { subject: "o1" });
  await appendTestEvent(stack.ctx.sql, stranger.accountId, strangerBox.id, { subject: "s1" });
  await appendTestEvent(stack.ctx.sql, owner.accountId, watched.id, { subject: "w2" });

  expect(subjects(await ownerStream.waitFor(3))).toEqual(["w1", "o1", "w2"]);
  expect(subjects(await boundStream.waitFor(2))).toEqual(["w1", "w2"]);
  expect(subjects(await strangerStream.waitFor(1))).toEqual(["s1"]);
  await Bun.sleep(300);
  expect([ownerStream.frames.length, boundStream.frames.length, strangerStream.frames.length]).toEqual([3, 2, 1]);
  for (const client of [ownerStream, boundStream, strangerStream]) client.close();
});

test("fan-out: a stream served by a second API instance hears mail accepted through the first", async () => {
  // A second process's worth of services: its own pool, its own LISTEN connection, its own server.
  const secondSvc = servicesWith(stack.ctx, { HTTP_PORT: "0" });
  const { makeSql } = await import("../../src/db.ts");
  secondSvc.sql = makeSql(stack.ctx.config.databaseUrl!, { max: 4 });
  const secondServer = startHttpServer(secondSvc, makeApp(secondSvc));
  try {
    const account = await makeAccount(stack.ctx);
    const mailbox = await makeMailbox(stack.ctx, account, "fanout");
    const onFirst = await openSse(`${base}/api/v1/events/stream`, account.key);
    const onSecond = await openSse(`http://127.0.0.1:${secondServer.port}/api/v1/events/stream`, account.key);
    await Bun.sleep(200);
    const sentAt = performance.now();
    await sendMail(stack.smtp.port, {
      from: "carol@example.org",
      to: mailbox.address,
      subject: "Fan-out check",
      text: "One message, two API instances.",
    });
    const [viaSecond] = await onSecond.waitFor(1);
    const [viaFirst] = await onFirst.waitFor(1);
    expect(JSON.parse(viaSecond!.data).subject).toBe("Fan-out check");
    expect(viaSecond!.data).toBe(viaFirst!.data);
    expect(viaSecond!.at - sentAt).toBeLessThan(10_000);
    expect(eventHubFor(secondSvc).size()).toBe(1);
    onFirst.close();
    onSecond.close();
  } finally {
    await drainEventHub(secondSvc);
    await secondServer.stop();
    await secondSvc.sql.end({ timeout: 5 });
  }
});

test("a client that stops reading is disconnected once its backlog stays over the bound", async () => {
  const ctx: TestContext = await makeTestContext({ HTTP_PORT: "0", EVENT_STREAM_MAX_QUEUE_BYTES: "65536", EVENT_STREAM_STALL_MS: "500" });
  const slowServer = startHttpServer(ctx.svc, ctx.app);
  try {
    const account = await makeAccount(ctx);
    const mailbox = await makeMailbox(ctx, account, "slow");
    const socket = net.connect(slowServer.port, "127.0.0.1");
    let closed = false;
    let received = 0;
    socket.on("data", (chunk) => void (received += chunk.length));
    socket.on("close", () => void (closed = true));
    socket.on("error", () => {});
    socket.write(`GET /api/v1/events/stream?after=0 HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${account.key}\r\n\r\n`);
    socket.pause();
    const hub = eventHubFor(ctx.svc);
    for (let waited = 0; hub.size() === 0 && waited < 5000; waited += 20) await Bun.sleep(20);
    expect(hub.size()).toBe(1);
    // About 30 MB of events: far more than the socket buffers and the bound together.
    const body = "x".repeat(100_000);
    for (let i = 0; i < 300; i++) await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { body });
    const deadline = performance.now() + 15_000;
    while (hub.size() > 0 && performance.now() < deadline) await Bun.sleep(50);
    expect(hub.size()).toBe(0);
    socket.resume();
    for (let waited = 0; !closed && waited < 5000; waited += 50) await Bun.sleep(50);
    expect(closed).toBe(true);
    // It got part of the log, never all 30 MB.
    expect(received).toBeLessThan(300 * 100_000);
  } finally {
    await drainEventHub(ctx.svc);
    await slowServer.stop();
    await ctx.close();
  }
});

test("a stream quiet for longer than Bun's 10 s idle timeout stays open", async () => {
  const ctx = await makeTestContext({ HTTP_PORT: "0", EVENT_HEARTBEAT_MS: "60000" });
  const quietServer = startHttpServer(ctx.svc, ctx.app);
  try {
    const account = await makeAccount(ctx);
    const mailbox = await makeMailbox(ctx, account, "quiet");
    const client = await openSse(`http://127.0.0.1:${quietServer.port}/api/v1/events/stream`, account.key);
    await Bun.sleep(11_000);
    await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: "after the quiet" });
    expect(subjects(await client.waitFor(1, 5000))).toEqual(["after the quiet"]);
    client.close();
  } finally {
    await drainEventHub(ctx.svc);
    await quietServer.stop();
    await ctx.close();
  }
}, 30_000);
