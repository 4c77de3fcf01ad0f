// The typed client (`agent-mailbox/client`) against the running service over real HTTP: typed
// results for success and contract errors, idempotent send, the event stream (mail sent through
// the client arrives on it) resuming across a severed connection without loss or repeats, a
// consumer's stream with acknowledgements, and webhook verification.
import { afterAll, beforeAll, expect, test } from "bun:test";
import net from "node:net";
import { createMailboxClient, type EventItem, verifyWebhook } from "agent-mailbox/client";
import { drainEventHub } from "../../src/core/events/hub.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { standardWebhookHeaders } from "../../src/standard-webhooks.ts";
import { signWebhook } from "../../src/webhook-signature.ts";
import { type Fixture, makeAccount } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";
import { type Stack, startStack, stopStack } from "../support/stack.ts";

let stack: Stack;
let server: HttpServer;
let account: Fixture;

/** A TCP relay on loopback in front of the server, whose connections a test can sever. */
function startRelay(targetPort: number) {
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  return new Promise<{ port: number; sever(): void; close(): void }>((resolve) =>
    relay.listen(0, "127.0.0.1", () =>
      resolve({
        port: (relay.address() as net.AddressInfo).port,
        sever: () => {
          for (const socket of sockets) socket.destroy();
        },
        close: () => {
          for (const socket of sockets) socket.destroy();
          return relay.close();
        },
      }),
    ),
  );
}

beforeAll(async () => {
  stack = await startStack({ HTTP_PORT: "0", DELIVERY_TRANSPORT: "local" });
  server = startHttpServer(stack.ctx.svc, stack.ctx.app);
  account = await makeAccount(stack.ctx);
});
afterAll(async () => {
  await drainEventHub(stack.ctx.svc);
  await server.stop();
  await stopStack(stack);
});

const base = () => `http://127.0.0.1:${server.port}`;

async function take<T>(iterator: AsyncGenerator<T>, count: number, timeoutMs = 15_000): Promise<T[]> {
  const items: T[] = [];
  const deadline = setTimeout(() => void iterator.return(undefined as never), timeoutMs);
  for await (const item of iterator) {
    items.push(item);
    if (items.length >= count) break;
  }
  clearTimeout(deadline);
  return items;
}

test("typed results, idempotent send, and the sent mail arriving on the event stream", async () => {
  const client = createMailboxClient({ baseUrl: base(), apiKey: account.key });
  const sender = await client.mailboxes.create({ slug: "client-sender" });
  const inbox = await client.mailboxes.create({ slug: "client-inbox" });
  if (!sender.ok || !inbox.ok) throw new Error("mailboxes not created");
  expect(sender.status).toBe(201);
  expect(inbox.data.address).toMatch(/^agent-client-inbox@/);

  const missing = await client.messages.get("msg_nope");
  expect(missing).toEqual({ ok: false, status: 404, error: { error: "message not found" } } as never);

  const iterator = client.events.stream({ mailboxId: inbox.data.id });
  const arriving = take(iterator, 1);
  await Bun.sleep(300);
  const first = await client.send({
    mailbox_id: sender.data.id,
    to: inbox.data.address,
    subject: "Typed hello",
    text: "Sent with the typed client.",
  });
  expect(first.status).toBe(201);
  expect(first.client_id).toMatch(/^cli-/);
  const again = await client.send({
    mailbox_id: sender.data.id,
    to: inbox.data.address,
    subject: "Typed hello",
    text: "Sent with the typed client.",
    client_id: first.client_id,
  });
  expect(again.status).toBe(200);
  if (first.status === 201 && again.status === 200) expect(again.data.id).toBe(first.data.id);
  const conflict = await client.send({ mailbox_id: sender.data.id, to: inbox.data.address, text: "different", client_id: first.client_id });
  expect(conflict.ok).toBe(false);
  if (!conflict.ok && conflict.status === 409) expect(conflict.error.code).toBe("idempotency_conflict");

  const [event] = await arriving;
  expect(event!.event.subject).toBe("Typed hello");
  expect(event!.event.mailbox_id).toBe(inbox.data.id);
  const message = await client.messages.get(event!.event.message_id!);
  expect(message.ok && message.data.body_clean).toContain("Sent with the typed client.");
});

test("the iterator resumes across a severed connection: no loss, no repeats", async () => {
  const relay = await startRelay(server.port);
  try {
    const client = createMailboxClient({ baseUrl: `http://127.0.0.1:${relay.port}`, apiKey: account.key });
    const box = await client.mailboxes.create({ slug: "client-resume" });
    if (!box.ok) throw new Error("no mailbox");
    const iterator = client.events.stream({ mailboxId: box.data.id, maxBackoffMs: 200 });
    const seen: EventItem[] = [];
    const reading = (async () => {
      for await (const item of iterator) {
        seen.push(item);
        if (seen.length >= 12) return;
      }
    })();
    await Bun.sleep(300);
    // Severed before any event: the resume point the server gave at the start still holds.
    relay.sever();
    for (let i = 0; i < 4; i++) await appendTestEvent(stack.ctx.sql, account.accountId, box.data.id, { subject: `c${i}` });
    for (let waited = 0; seen.length < 4 && waited < 10_000; waited += 50) await Bun.sleep(50);
    relay.sever();
    for (let i = 4; i < 8; i++) await appendTestEvent(stack.ctx.sql, account.accountId, box.data.id, { subject: `c${i}` });
    await Bun.sleep(100);
    relay.sever();
    for (let i = 8; i < 12; i++) await appendTestEvent(stack.ctx.sql, account.accountId, box.data.id, { subject: `c${i}` });
    await Promise.race([reading, Bun.sleep(15_000)]);
    expect(seen.map((item) => item.event.subject)).toEqual(Array.from({ length: 12 }, (_, i) => `c${i}`));
  } finally {
    relay.close();
  }
});

test("a consumer's stream through the client: items acknowledged one by one", async () => {
  const client = createMailboxClient({ baseUrl: base(), apiKey: account.key });
  const box = await client.mailboxes.create({ slug: "client-consumer" });
  if (!box.ok) throw new Error("no mailbox");
  const consumer = client.consumer("client-workers", { mailboxId: box.data.id });
  await consumer.open();
  const appended = [];
  for (let i = 0; i < 3; i++) appended.push(await appendTestEvent(stack.ctx.sql, account.accountId, box.data.id, { subject: `k${i}` }));
  const subjects: string[] = [];
  for await (const item of consumer.stream({ prefetch: 1 })) {
    subjects.push(item.event.subject);
    await item.ack();
    if (subjects.length === 3) break;
  }
  expect(subjects).toEqual(["k0", "k1", "k2"]);
  const state = await client.api.GET("/api/v1/consumers/{name}", { params: { path: { name: "client-workers" } } });
  expect(state.data?.acked_through).toBe(appended.at(-1)!.cursor);
});

test("verifyWebhook checks Standard Webhooks headers, or the contract's", async () => {
  const secret = `whsec_${btoa("a-client-test-secret-32-bytes!!!")}`;
  const body = JSON.stringify({ event_id: "evt_1", type: "message.received" });
  const now = Date.now();
  const standard = new Headers(await standardWebhookHeaders(secret, "evt_1", now, body));
  expect(await verifyWebhook(body, standard, secret)).toEqual({ ok: true });
  expect((await verifyWebhook(body.replace("1", "2"), standard, secret)).ok).toBe(false);
  const spec = { "x-service-signature": await signWebhook(secret, now, body), "x-service-timestamp": String(now) };
  expect(await verifyWebhook(body, spec, secret)).toEqual({ ok: true });
});
