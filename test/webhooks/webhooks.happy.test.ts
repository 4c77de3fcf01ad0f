// message.received end to end: mail over real SMTP, screened by the real worker, POSTed to a real
// receiver on loopback. The payload carries exactly the spec's fields, body is the sanitized text
// (hidden HTML never leaves), and the signature verifies with the exported receiver function.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
// Imported the way a receiver does: through the package export.
import { verifyWebhookSignature } from "agent-mailbox/verify";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { disableWebhook, setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { signWebhook } from "../../src/webhook-signature.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { reusableDataDir, sendMail, waitFor } from "../support/smtp-client.ts";
import { type ReceivedRequest, type Receiver, startReceiver } from "../support/webhook-receiver.ts";

const SECRET = "whsec_happy_path_secret_0123456789";
const PAYLOAD_FIELDS = [
  "body",
  "classification",
  "comprehension_status",
  "confidence",
  "event_id",
  "extraction",
  "extraction_error",
  "from",
  "mailbox_id",
  "message_id",
  "sanitization",
  "subject",
  "thread_id",
  "truncated",
  "type",
].sort();
const CANARY = "CANARY7731 hidden footer text";

let ctx: TestContext;
let smtp: SmtpListener;
let worker: WorkerHandle;
let receiver: Receiver;

beforeAll(async () => {
  // The receiver is on loopback, which production refuses (see webhooks.security.test.ts).
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
  smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
  worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  receiver = await startReceiver();
});

afterAll(async () => {
  await worker.stop();
  await smtp.close();
  await receiver.close();
  await ctx.close();
});

async function processed(subject: string) {
  return waitFor(async () => {
    const [row] = await ctx.sql`select id, account_id, processed_at from messages where subject = ${subject} and processed_at is not null`;
    return row;
  }, `message '${subject}' to be screened`);
}

describe("a message arrives for an account with a webhook", () => {
  let mailbox: { id: string; address: string };
  let request: ReceivedRequest;
  let payload: Record<string, any>;
  const subject = "Lunch on Thursday?";

  beforeAll(async () => {
    const account = await makeAccount(ctx);
    mailbox = await makeMailbox(ctx, account, "happy");
    await setWebhook(ctx.svc, { accountId: account.accountId, url: receiver.url, secret: SECRET });
    await sendMail(smtp.port, {
      from: "Alice Example <alice@example.org>",
      to: mailbox.address,
      subject,
      // The text alternative says what the HTML hides: body_raw (the text part) keeps it for
      // audit, body_clean (from the HTML, hidden elements dropped) does not.
      text: `Hi Sam,\n\nAre you free for lunch on Thursday? The usual place at noon works for me.\n\nAlice\n\n${CANARY}`,
      html:
        "<p>Hi Sam,</p><p>Are you free for lunch on Thursday? The usual place at noon works for me.</p>" +
        `<div style="display:none">${CANARY}</div><p>Alice</p>`,
    });
    [request] = await receiver.waitForRequests(1);
    payload = JSON.parse(request!.text);
  });

  test("one POST to the configured path, JSON, with both signature headers", async () => {
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/hooks/mail");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["x-service-signature"]).toMatch(/^[0-9a-f]{64}$/);
    const timestamp = Number(request.headers["x-service-timestamp"]);
    expect(String(request.headers["x-service-timestamp"])).toMatch(/^\d+$/);
    expect(Math.abs(Date.now() - timestamp)).toBeLessThan(30_000);

    // Acknowledged on the first try: no second request, one attempt recorded as 200.
    const delivery = await waitFor(async () => {
      const [row] =
        await ctx.sql`select id, state, attempts from webhook_deliveries where event_id = ${payload.event_id} and state = 'delivered'`;
      return row;
    }, "the delivery to be marked delivered");
    expect(delivery.attempts).toBe(1);
    await Bun.sleep(1200);
    expect(receiver.requests).toHaveLength(1);
    const attempts = await ctx.sql`select status, error from webhook_attempts where delivery_id = ${delivery.id}`;
    expect(attempts.map((a) => ({ ...a }))).toEqual([{ status: 200, error: null }]);
  });

  test("the payload has exactly the spec's fields, with the stored message's values", async () => {
    expect(Object.keys(payload).sort()).toEqual(PAYLOAD_FIELDS);
    const [message] = await ctx.sql`
      select id, mailbox_id, thread_id, from_addr, subject, body_clean, body_raw, truncated, sanitization, comprehension
      from messages where subject = ${subject}`;
    expect(payload.event_id).toMatch(/^evt_/);
    expect(payload.type).toBe("message.received");
    expect(payload.message_id).toBe(message!.id);
    expect(payload.mailbox_id).toBe(mailbox.id);
    expect(payload.thread_id).toBe(message!.thread_id);
    expect(payload.from).toBe("alice@example.org");
    expect(payload.subject).toBe(subject);
    expect(payload.truncated).toBe(false);
    expect(payload.sanitization).toEqual(message!.sanitization);
    expect(payload.sanitization.hidden_elements).toBeGreaterThanOrEqual(1);
    expect(payload.comprehension_status).toBe("complete");
    expect(payload.comprehension_status).toBe(message!.comprehension.status);
    expect(typeof payload.classification).toBe("object");
    expect(payload.classification).not.toBeNull();
    expect(payload.extraction === null || typeof payload.extraction === "object").toBe(true);
    expect(payload.extraction_error).toBeNull();
    expect(typeof payload.confidence).toBe("number");
    // The event is stored as the exact bytes sent, so retries and redrives repeat them.
    const [event] = await ctx.sql`select payload from webhook_events where id = ${payload.event_id}`;
    expect(event!.payload).toBe(request.text);
  });

  test("body is body_clean: the hidden HTML text is kept for audit but never sent", async () => {
    const [message] = await ctx.sql`select body_clean, body_raw from messages where subject = ${subject}`;
    expect(message!.body_raw).toContain("CANARY7731");
    expect(message!.body_clean).not.toContain("CANARY7731");
    expect(payload.body).toBe(message!.body_clean);
    expect(payload.body).toContain("free for lunch on Thursday");
    expect(request.text).not.toContain("CANARY7731");
  });

  test("the signature verifies over the raw bytes, and fails for a wrong secret, an edited body or an old timestamp", async () => {
    const headers = request.headers as Record<string, string>;
    expect(await verifyWebhookSignature(request.text, headers, SECRET)).toEqual({ ok: true });
    expect(await verifyWebhookSignature(request.text, new Headers(headers), SECRET)).toEqual({ ok: true });

    expect(await verifyWebhookSignature(request.text, headers, `${SECRET}x`)).toEqual({ ok: false, reason: "bad signature" });
    const edited = request.text.replace("Lunch on Thursday?", "Lunch on Friday??");
    expect(edited).not.toBe(request.text);
    expect(await verifyWebhookSignature(edited, headers, SECRET)).toEqual({ ok: false, reason: "bad signature" });
    // Re-serialized JSON is not the raw body when key order or spacing differ.
    expect(await verifyWebhookSignature(JSON.stringify(payload, null, 1), headers, SECRET)).toEqual({ ok: false, reason: "bad signature" });

    // Replayed later than 5 minutes: refused; just inside: accepted.
    const sentAt = Number(headers["x-service-timestamp"]);
    expect(await verifyWebhookSignature(request.text, headers, SECRET, { now: sentAt + 5 * 60_000 + 1 })).toEqual({
      ok: false,
      reason: "timestamp too old",
    });
    expect(await verifyWebhookSignature(request.text, headers, SECRET, { now: sentAt + 4 * 60_000 })).toEqual({ ok: true });

    // A correctly signed request whose timestamp is six minutes old is still refused.
    const old = Date.now() - 6 * 60_000;
    const oldHeaders = { "x-service-timestamp": String(old), "x-service-signature": await signWebhook(SECRET, old, request.text) };
    expect(await verifyWebhookSignature(request.text, oldHeaders, SECRET)).toEqual({ ok: false, reason: "timestamp too old" });
    // A timestamp moved forward to look fresh breaks the signature.
    const shifted = { ...headers, "x-service-timestamp": String(sentAt + 1) };
    expect(await verifyWebhookSignature(request.text, shifted, SECRET)).toEqual({ ok: false, reason: "bad signature" });
    expect(await verifyWebhookSignature(request.text, { "x-service-timestamp": String(sentAt) }, SECRET)).toEqual({
      ok: false,
      reason: "missing headers",
    });
  });
});

describe("no event without an enabled webhook", () => {
  test("an account with no webhook configured: the message is screened, no event, nothing posted", async () => {
    const account = await makeAccount(ctx);
    const mailbox = await makeMailbox(ctx, account, "nohook");
    const before = receiver.requests.length;
    await sendMail(smtp.port, {
      from: "bob@example.org",
      to: mailbox.address,
      subject: "Photos from the weekend",
      text: "Hi,\n\nHere are the photos from Saturday, hope you like them.\n\nBob",
    });
    const message = await processed("Photos from the weekend");
    const events = await ctx.sql`select id from webhook_events where account_id = ${account.accountId} or message_id = ${message.id}`;
    expect(events).toHaveLength(0);
    expect(receiver.requests.length).toBe(before);
  });

  test("a disabled webhook: no event, nothing posted; enabling it again sends the next message", async () => {
    const account = await makeAccount(ctx);
    const mailbox = await makeMailbox(ctx, account, "disabled");
    const own = await startReceiver();
    try {
      await setWebhook(ctx.svc, { accountId: account.accountId, url: own.url, secret: SECRET });
      expect(await disableWebhook(ctx.sql, account)).toBe(true);
      await sendMail(smtp.port, {
        from: "carol@example.org",
        to: mailbox.address,
        subject: "Dinner plans",
        text: "Hey,\n\nShall we meet for dinner at seven on Friday?\n\nCarol",
      });
      const message = await processed("Dinner plans");
      expect(await ctx.sql`select id from webhook_events where message_id = ${message.id}`).toHaveLength(0);
      await Bun.sleep(300);
      expect(own.requests).toHaveLength(0);

      // The control: the same account with the webhook on again does get the next message.
      await setWebhook(ctx.svc, { accountId: account.accountId, url: own.url, secret: SECRET });
      await sendMail(smtp.port, {
        from: "carol@example.org",
        to: mailbox.address,
        subject: "Dinner plans, again",
        text: "Hey,\n\nSeven on Friday still good for dinner?\n\nCarol",
      });
      const [got] = await own.waitForRequests(1);
      expect(JSON.parse(got!.text).subject).toBe("Dinner plans, again");
    } finally {
      await own.close();
    }
  });
});
