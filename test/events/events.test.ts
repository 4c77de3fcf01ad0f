// The event log and GET /api/v1/events: every message.received event lands in the log (webhook
// or not) with the webhook's payload and event_id; pages resume after a cursor in order; keys see
// what the message API lets them see; retention removes old events.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { pruneEventLog } from "../../src/core/events/log.ts";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";
import { sendMail, waitFor } from "../support/smtp-client.ts";
import { type Stack, startStack, stopStack } from "../support/stack.ts";
import { type Receiver, startReceiver } from "../support/webhook-receiver.ts";

let stack: Stack;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
  receiver = await startReceiver();
});
afterAll(async () => {
  await stopStack(stack);
  await receiver.close();
});

const get = (path: string, key: string | null) => stack.ctx.request("GET", path, { key });

describe("inbound mail appends to the log", () => {
  test("without a webhook: the event is logged with the webhook payload's fields", async () => {
    const account = await makeAccount(stack.ctx);
    const mailbox = await makeMailbox(stack.ctx, account, "nohook");
    await sendMail(stack.smtp.port, {
      from: "alice@example.org",
      to: mailbox.address,
      subject: "Logged without a webhook",
      text: "Hello there, a plain note.",
    });
    const page = await waitFor(async () => {
      const response = await get("/api/v1/events", account.key);
      return response.body.events.length === 1 ? response.body : null;
    }, "the event in the log");
    const [item] = page.events;
    expect(item.event.type).toBe("message.received");
    expect(item.event.event_id).toMatch(/^evt_/);
    expect(item.event.mailbox_id).toBe(mailbox.id);
    expect(item.event.subject).toBe("Logged without a webhook");
    expect(page.next_cursor).toBe(item.cursor);
    const [message] = await stack.ctx.sql`select id from messages where subject = 'Logged without a webhook'`;
    expect(item.event.message_id).toBe(message!.id);
    const [webhookEvent] = await stack.ctx.sql`select id from webhook_events where message_id = ${message!.id}`;
    expect(webhookEvent).toBeUndefined();
  });

  test("with a webhook: the same event_id and the same bytes as the delivery", async () => {
    const account = await makeAccount(stack.ctx);
    const mailbox = await makeMailbox(stack.ctx, account, "hooked");
    await setWebhook(stack.ctx.svc, { accountId: account.accountId, url: receiver.url, secret: "whsec_event_log_secret_0123456789" });
    await sendMail(stack.smtp.port, {
      from: "bob@example.org",
      to: mailbox.address,
      subject: "Logged and delivered",
      text: "Same bytes both ways.",
    });
    const [request] = await receiver.waitForRequests(1);
    const [logged] = await stack.ctx.sql`select id, payload from event_log where account_id = ${account.accountId}`;
    expect(logged!.payload).toBe(request!.text);
    expect(JSON.parse(request!.text).event_id).toBe(logged!.id);
  });
});

describe("GET /api/v1/events", () => {
  let account: Fixture;
  let first: { id: string; address: string };
  let second: { id: string; address: string };
  const cursors: string[] = [];

  beforeAll(async () => {
    account = await makeAccount(stack.ctx);
    first = await makeMailbox(stack.ctx, account, "first");
    second = await makeMailbox(stack.ctx, account, "second");
    for (let i = 0; i < 6; i++)
      cursors.push(
        (await appendTestEvent(stack.ctx.sql, account.accountId, i % 2 === 0 ? first.id : second.id, { subject: `n${i}` })).cursor,
      );
  });

  test("pages in order and resumes after next_cursor without loss or repeats", async () => {
    const seen: string[] = [];
    let after = "0";
    for (let pages = 0; pages < 10; pages++) {
      const { status, body } = await get(`/api/v1/events?after=${after}&limit=4`, account.key);
      expect(status).toBe(200);
      if (body.events.length === 0) break;
      seen.push(...body.events.map((item: any) => item.event.subject));
      after = body.next_cursor;
    }
    expect(seen).toEqual(["n0", "n1", "n2", "n3", "n4", "n5"]);
    expect(after).toBe(cursors.at(-1)!);
    const tail = await get(`/api/v1/events?after=${after}`, account.key);
    expect(tail.body).toEqual({ events: [], next_cursor: after });
  });

  test("mailbox_id filters; a bound key sees only its mailbox, and another mailbox_id is 403 key_scope", async () => {
    const filtered = await get(`/api/v1/events?mailbox_id=${second.id}`, account.key);
    expect(filtered.body.events.map((item: any) => item.event.subject)).toEqual(["n1", "n3", "n5"]);
    const bound = await makeKey(stack.ctx, { accountId: account.accountId, scope: "api", mailboxId: first.id });
    const own = await get("/api/v1/events", bound);
    expect(own.body.events.map((item: any) => item.event.subject)).toEqual(["n0", "n2", "n4"]);
    const other = await get(`/api/v1/events?mailbox_id=${second.id}`, bound);
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: "this api key is scoped to a different mailbox", code: "key_scope" });
  });

  test("another account sees none of them, even naming the mailbox", async () => {
    const stranger = await makeAccount(stack.ctx);
    expect((await get("/api/v1/events?after=0", stranger.key)).body.events).toEqual([]);
    expect((await get(`/api/v1/events?mailbox_id=${first.id}`, stranger.key)).body.events).toEqual([]);
  });

  test("authentication, can_read and input errors", async () => {
    expect((await get("/api/v1/events", null)).body).toEqual({ error: "missing bearer token" });
    expect((await get("/api/v1/events", "svc_nope")).status).toBe(401);
    const blind = await makeKey(stack.ctx, { accountId: account.accountId, scope: "api", canRead: false });
    expect((await get("/api/v1/events", blind)).body).toEqual({ error: "this api key cannot read messages", code: "key_scope" });
    for (const bad of ["abc", "-1", "1e3", "99999999999999999999"]) {
      const response = await get(`/api/v1/events?after=${bad}`, account.key);
      expect({ bad, status: response.status }).toEqual({ bad, status: 400 });
    }
    expect((await get("/api/v1/events?limit=0", account.key)).status).toBe(400);
  });

  test("limit is clamped to 500", async () => {
    const { body } = await get("/api/v1/events?limit=100000", account.key);
    expect(body.events.length).toBe(6);
  });
});

test("retention: events older than the retention are pruned, newer ones kept", async () => {
  const account = await makeAccount(stack.ctx);
  const mailbox = await makeMailbox(stack.ctx, account, "retained");
  const old = await appendTestEvent(stack.ctx.sql, account.accountId, mailbox.id, { subject: "old" });
  const fresh = await appendTestEvent(stack.ctx.sql, account.accountId, mailbox.id, { subject: "fresh" });
  await stack.ctx.sql`update event_log set created_at = now() - interval '31 days' where id = ${old.id}`;
  expect(await pruneEventLog(stack.ctx.sql, 30)).toBeGreaterThanOrEqual(1);
  const remaining = await stack.ctx.sql`select id from event_log where account_id = ${account.accountId}`;
  expect(remaining.map((row) => row.id)).toEqual([fresh.id]);
});

test("retention runs as the worker's prune_event_log task", async () => {
  const account = await makeAccount(stack.ctx);
  const mailbox = await makeMailbox(stack.ctx, account, "pruned");
  const old = await appendTestEvent(stack.ctx.sql, account.accountId, mailbox.id, { subject: "old" });
  await stack.ctx.sql`update event_log set created_at = now() - interval '31 days' where id = ${old.id}`;
  await stack.ctx.sql`select graphile_worker.add_job('prune_event_log', '{}'::json)`;
  await waitFor(async () => (await stack.ctx.sql`select 1 from event_log where id = ${old.id}`).length === 0, "the old event to be pruned");
});
