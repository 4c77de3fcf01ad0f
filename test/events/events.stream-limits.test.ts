// Open event streams per key: past EVENT_STREAMS_PER_KEY (SSE and WebSocket together) a new one is
// 429 with Retry-After, another key is untouched, and a stream that ends gives its slot back. HEAD
// on the stream route answers at once, without opening a stream. Over real HTTP.
import { afterAll, beforeAll, expect, test } from "bun:test";
import net from "node:net";
import { drainEventHub, eventHubFor } from "../../src/core/events/hub.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { makeAccount, makeTestContext, type TestContext } from "../support/context.ts";
import { openSse } from "../support/events.ts";

let ctx: TestContext;
let server: HttpServer;
let base: string;

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0", EVENT_STREAMS_PER_KEY: "2" });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await drainEventHub(ctx.svc);
  await server.stop();
  await ctx.close();
});

/** The status line and body of a WebSocket upgrade request, read off a raw socket. */
function upgrade(key: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      if (status === 101 || (status && text.includes("}"))) {
        socket.destroy();
        resolve({ status, text });
      }
    });
    socket.on("error", reject);
    socket.write(
      `GET /api/v1/events/ws HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${key}\r\nupgrade: websocket\r\n` +
        "connection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n",
    );
  });
}

async function waitForStreams(count: number) {
  const hub = eventHubFor(ctx.svc);
  for (let waited = 0; hub.size() !== count; waited += 20) {
    if (waited > 5000) throw new Error(`expected ${count} open streams, got ${hub.size()}`);
    await Bun.sleep(20);
  }
}

test("past the per-key cap a stream is 429 with Retry-After, SSE and WebSocket alike; another key still opens; an ended stream frees its slot", async () => {
  const greedy = await makeAccount(ctx);
  const other = await makeAccount(ctx);
  const first = await openSse(`${base}/api/v1/events/stream`, greedy.key);
  const second = await openSse(`${base}/api/v1/events/stream`, greedy.key);
  expect([first.status, second.status]).toEqual([200, 200]);

  const third = await fetch(`${base}/api/v1/events/stream`, { headers: { authorization: `Bearer ${greedy.key}` } });
  expect(third.status).toBe(429);
  expect(third.headers.get("retry-after")).toBe("5");
  expect(third.headers.get("content-type")).toStartWith("application/json");
  expect(await third.json()).toEqual({ error: "too many open event streams for this api key (at most 2)" });
  const socket = await upgrade(greedy.key);
  expect(socket.status).toBe(429);
  expect(socket.text.toLowerCase()).toContain("retry-after: 5");

  const others = await openSse(`${base}/api/v1/events/stream`, other.key);
  expect(others.status).toBe(200);
  expect((await upgrade(other.key)).status).toBe(101);

  first.close();
  await waitForStreams(2); // the greedy key's second stream and the other key's SSE stream
  const again = await openSse(`${base}/api/v1/events/stream`, greedy.key);
  expect(again.status).toBe(200);
  for (const client of [second, others, again]) client.close();
  await waitForStreams(0);
});

test("HEAD on the stream route answers at once with the stream's headers, and opens nothing", async () => {
  const account = await makeAccount(ctx);
  const held = [await openSse(`${base}/api/v1/events/stream`, account.key), await openSse(`${base}/api/v1/events/stream`, account.key)];
  const head = await fetch(`${base}/api/v1/events/stream`, {
    method: "HEAD",
    headers: { authorization: `Bearer ${account.key}` },
    signal: AbortSignal.timeout(10_000),
  });
  expect(head.status).toBe(200);
  expect(head.headers.get("content-type")).toStartWith("text/event-stream");
  const refused = await fetch(`${base}/api/v1/events/stream`, { method: "HEAD", signal: AbortSignal.timeout(10_000) });
  expect(refused.status).toBe(401);
  const unknown = await fetch(`${base}/api/v1/events/stream?consumer=nobody`, {
    method: "HEAD",
    headers: { authorization: `Bearer ${account.key}` },
    signal: AbortSignal.timeout(10_000),
  });
  expect(unknown.status).toBe(404);
  for (const client of held) client.close();
  await waitForStreams(0);
});

test("HEAD on the WebSocket route answers like HEAD on the stream: the same checks, then 200 at once, opening nothing", async () => {
  const account = await makeAccount(ctx);
  const held = [await openSse(`${base}/api/v1/events/stream`, account.key), await openSse(`${base}/api/v1/events/stream`, account.key)];
  await waitForStreams(2);
  const head = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: "HEAD", headers, signal: AbortSignal.timeout(10_000) });
  const auth = { authorization: `Bearer ${account.key}` };
  // The key holds every slot it may: HEAD still answers, as it takes none.
  const ok = await head("/api/v1/events/ws", auth);
  expect(ok.status).toBe(200);
  expect(await ok.text()).toBe("");
  expect((await head(`/api/v1/events/ws?access_token=${account.key}`)).status).toBe(200);
  expect((await head("/api/v1/events/ws")).status).toBe(401);
  expect((await head("/api/v1/events/ws?consumer=nobody", auth)).status).toBe(404);
  expect((await head("/api/v1/events/ws?after=not-a-cursor", auth)).status).toBe(400);
  // The SSE route gives the same statuses for the same requests.
  expect((await head("/api/v1/events/stream?consumer=nobody", auth)).status).toBe(404);
  expect((await head("/api/v1/events/stream?after=not-a-cursor", auth)).status).toBe(400);
  expect(eventHubFor(ctx.svc).size()).toBe(2);
  for (const client of held) client.close();
  await waitForStreams(0);
});
