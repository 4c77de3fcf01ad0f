// What became of outbound mail and drafts, as events: a send whose recipient's MX answers 550, a
// send the MX accepts and a bounce report for it arriving later over SMTP, and a draft's review.
// Direct MX delivery goes to a loopback SMTP sink found through a real DNS server; the webhook
// receiver is a real HTTP server that checks the signature.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { verifyWebhookSignature } from "agent-mailbox/verify";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { approveDraft, rejectDraft } from "../../src/core/outbound/drafts.ts";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";
import { refusal } from "../support/refusal.ts";
import { openSmtp, reusableDataDir, waitFor } from "../support/smtp-client.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type Receiver, startReceiver } from "../support/webhook-receiver.ts";

const SECRET = "whsec_outbound_events_secret_0123456789";
let dns: DnsServer;
let sink: SmtpSink;
let ctx: TestContext;
let smtp: SmtpListener;
let worker: WorkerHandle;
let receiver: Receiver;
let owner: Fixture;
let mailbox: { id: string; address: string };

beforeAll(async () => {
  sink = await startSmtpSink();
  const mx = (host: string) => ({ MX: [{ exchange: host, priority: 10 }] });
  dns = await startDnsServer({
    "refuses.test": mx("mx.refuses.test"),
    "mx.refuses.test": { A: ["127.0.0.1"] },
    "accepts.test": mx("mx.accepts.test"),
    "mx.accepts.test": { A: ["127.0.0.1"] },
  });
  ctx = await makeTestContext({
    DATA_DIR: reusableDataDir,
    DELIVERY_TRANSPORT: "mx",
    DNS_SERVERS: dns.address,
    MX_DELIVERY_PORT: String(sink.port),
    MX_DELIVERY_ALLOW_PRIVATE_NETWORKS: "true",
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    DELIVERY_TIMEOUT_MS: "20000",
    DNS_TIMEOUT_MS: "10000",
  });
  smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
  worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  receiver = await startReceiver();
  owner = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, owner, "events");
  await setWebhook(ctx.svc, {
    accountId: owner.accountId,
    url: receiver.url,
    secret: SECRET,
    eventTypes: ["message.sent", "message.delivered", "message.send_failed", "message.bounced", "draft.rejected"],
  });
});

afterAll(async () => {
  await worker.stop();
  await smtp.close();
  await receiver.close();
  await ctx.close();
  await sink.close();
  await dns.close();
});

type Logged = { cursor: string; event: Record<string, any> };

async function eventsOf(type: string, key = owner.key): Promise<Logged[]> {
  const page = await ctx.request("GET", `/api/v1/events?types=${type}&limit=500`, { key });
  expect(page.status).toBe(200);
  return page.body.events;
}

/** The webhook requests of one type, once each has arrived; their signatures are checked. */
async function posted(type: string, match: (event: Record<string, any>) => boolean) {
  const request = await waitFor(
    async () => receiver.requests.find((r) => JSON.parse(r.text).type === type && match(JSON.parse(r.text))),
    `a ${type} webhook`,
    20_000,
  );
  expect(await verifyWebhookSignature(request.text, request.headers as Record<string, string>, SECRET)).toEqual({ ok: true });
  return JSON.parse(request.text) as Record<string, any>;
}

describe("a send the recipient's MX refuses with 550", () => {
  let failed: Record<string, any>;

  beforeAll(async () => {
    sink.mode = "reject-rcpt-550";
    const response = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: mailbox.id, to: "nobody@refuses.test", subject: "Will bounce at once", text: "Hello" },
    });
    sink.mode = "accept";
    expect(response.status).toBe(400);
    expect(response.body.retryable).toBe(false);
    const [event] = (await eventsOf("message.send_failed")).filter((e) => e.event.to === "nobody@refuses.test");
    failed = event!.event;
  });

  test("message.send_failed names the outbound message, with the 550 and that it will not be retried", () => {
    expect(failed.type).toBe("message.send_failed");
    expect(failed.message_id).toMatch(/^msg_/);
    expect(failed.mailbox_id).toBe(mailbox.id);
    expect(failed.subject).toBe("Will bounce at once");
    expect(failed.detail).toMatchObject({ outcome: "refused", response_code: 550, permanent: true, will_retry: false, transport: "mx" });
    expect(failed.detail.error).toContain("550");
  });

  test("the message's history answers for the id although the failed message itself is gone", async () => {
    expect((await ctx.request("GET", `/api/v1/messages/${failed.message_id}`, { key: owner.key })).status).toBe(404);
    const history = await ctx.request("GET", `/api/v1/messages/${failed.message_id}/events`, { key: owner.key });
    expect(history.status).toBe(200);
    expect(history.body.events.map((e: any) => e.type)).toEqual(["message.send_failed"]);
    expect(history.body.events[0].event.event_id).toBe(failed.event_id);
  });

  test("the webhook that chose message.send_failed receives it signed, with the same event_id", async () => {
    const body = await posted("message.send_failed", (e) => e.message_id === failed.message_id);
    expect(body.event_id).toBe(failed.event_id);
  });
});

describe("a send the MX accepts, and a bounce report for it arriving later", () => {
  let sentId: string;

  beforeAll(async () => {
    const response = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: mailbox.id, to: "carol@accepts.test", subject: "Accepted, then bounced", text: "Hello Carol" },
    });
    expect(response.status).toBe(201);
    sentId = response.body.id;
  });

  test("message.sent then message.delivered (the recipient's own server said 250), naming the message", async () => {
    const history = await ctx.request("GET", `/api/v1/messages/${sentId}/events`, { key: owner.key });
    expect(history.body.events.map((e: any) => e.type)).toEqual(["message.sent", "message.delivered"]);
    const [sent, delivered] = history.body.events.map((e: any) => e.event);
    expect(sent).toMatchObject({ message_id: sentId, to: "carol@accepts.test", draft_id: null });
    expect(sent.detail).toMatchObject({ transport: "mx" });
    expect(delivered.detail).toMatchObject({ next_hop: "recipient_mx" });
    expect(String(delivered.detail.response)).toContain("250");
  });

  test("a DSN about it delivered over SMTP becomes message.bounced with the status and the diagnostic", async () => {
    const [row] = await ctx.sql`select rfc_message_id from messages where id = ${sentId}`;
    await deliverReport(mailbox.address, row!.rfc_message_id, "carol@accepts.test");
    const bounced = await waitFor(
      async () => (await eventsOf("message.bounced")).find((e) => e.event.message_id === sentId),
      "message.bounced",
      20_000,
    );
    expect(bounced.event.detail).toMatchObject({ status: "5.1.1", action: "failed", recipient: "carol@accepts.test" });
    expect(bounced.event.detail.diagnostic).toBe("550 5.1.1 <carol@accepts.test>: mailbox does not exist");
    const [report] = await ctx.sql`select id from messages where subject = 'Undelivered Mail Returned to Sender' and direction = 'in'`;
    expect(bounced.event.detail.report_message_id).toBe(report!.id);
    const history = await ctx.request("GET", `/api/v1/messages/${sentId}/events`, { key: owner.key });
    expect(history.body.events.map((e: any) => e.type)).toEqual(["message.sent", "message.delivered", "message.bounced"]);

    const body = await posted("message.bounced", (e) => e.message_id === sentId);
    expect(body.event_id).toBe(bounced.event.event_id);
    await posted("message.sent", (e) => e.message_id === sentId);
    await posted("message.delivered", (e) => e.message_id === sentId);
  });

  test("the same report screened again (a retried job) says nothing twice", async () => {
    const [report] = await ctx.sql`select id from messages where subject = 'Undelivered Mail Returned to Sender' and direction = 'in'`;
    const { applyDeliveryReports } = await import("../../src/core/inbound/bounces.ts");
    await applyDeliveryReports(ctx.svc, { id: report!.id, account_id: owner.accountId });
    expect((await eventsOf("message.bounced")).filter((e) => e.event.message_id === sentId)).toHaveLength(1);
  });
});

describe("a draft's review", () => {
  let approvalBox: { id: string; address: string };

  beforeAll(async () => {
    approvalBox = await makeMailbox(ctx, owner, "reviewed");
    await ctx.sql`update mailboxes set require_approval = true where id = ${approvalBox.id}`;
  });

  test("held, approved, sent: draft.pending_approval, draft.approved naming the message, then message.sent", async () => {
    const queued = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: approvalBox.id, to: "dave@accepts.test", subject: "Needs a human", text: "Hi" },
    });
    expect(queued.status).toBe(202);
    const draftId = queued.body.draft_id;
    const approved = await approveDraft(ctx.svc, { accountId: owner.accountId, name: "reviewer@example.org" }, draftId);
    expect(approved.kind).toBe("sent");
    const messageId = approved.kind === "sent" ? approved.messageId : "";

    const history = await ctx.request("GET", `/api/v1/drafts/${draftId}/events`, { key: owner.key });
    expect(history.status).toBe(200);
    expect(history.body.events.map((e: any) => e.type)).toEqual([
      "draft.pending_approval",
      "draft.approved",
      "message.sent",
      "message.delivered",
    ]);
    const [pending, approval, sent] = history.body.events.map((e: any) => e.event);
    expect(pending).toMatchObject({ draft_id: draftId, message_id: null, to: "dave@accepts.test" });
    expect(pending.detail).toEqual({ held_reason: null, held_by: "require_approval" });
    expect(approval).toMatchObject({ draft_id: draftId, message_id: messageId });
    expect(approval.detail.decided_by).toBe("reviewer@example.org");
    expect(sent).toMatchObject({ draft_id: draftId, message_id: messageId });
    // The message's own history includes its draft's review.
    const ofMessage = await ctx.request("GET", `/api/v1/messages/${messageId}/events`, { key: owner.key });
    expect(ofMessage.body.events.map((e: any) => e.type)).toEqual(history.body.events.map((e: any) => e.type));
  });

  test("rejected for a reason (review expiry) through the shared rejection: draft.rejected says who and why", async () => {
    const queued = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: approvalBox.id, to: "erin@accepts.test", subject: "Left waiting", text: "Hi" },
    });
    const draftId = queued.body.draft_id;
    await rejectDraft(ctx.sql, { accountId: null, name: "review-expiry" }, draftId, "expired");
    const [rejected] = (await eventsOf("draft.rejected")).filter((e) => e.event.draft_id === draftId);
    expect(rejected!.event.detail).toEqual({ decided_by: "review-expiry", reason: "expired", held_reason: null });
    const body = await posted("draft.rejected", (e) => e.draft_id === draftId);
    expect(body.event_id).toBe(rejected!.event.event_id);
    // Not chosen by this webhook: no draft.pending_approval was posted.
    expect(receiver.requests.some((r) => JSON.parse(r.text).type === "draft.pending_approval")).toBe(false);
  });

  test("an edit racing a rejection: the loser's 409 leaves no event", async () => {
    const before = (await eventsOf("draft.rejected")).length;
    const created = await ctx.request("POST", "/api/v1/drafts", {
      key: owner.key,
      body: { mailbox_id: approvalBox.id, to: "frank@accepts.test", text: "draft" },
    });
    expect(await refusal(rejectDraft(ctx.sql, { accountId: owner.accountId, name: "owner" }, created.body.id))).toMatchObject({
      status: 409,
    });
    expect(await eventsOf("draft.rejected")).toHaveLength(before);
  });
});

describe("who may read a history", () => {
  let sentId: string;
  beforeAll(async () => {
    const response = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: mailbox.id, to: "gina@accepts.test", text: "Hello" },
    });
    sentId = response.body.id;
  });

  test("another account, a key bound to another mailbox and a missing id get the same 404", async () => {
    const stranger = await makeAccount(ctx);
    const other = await makeMailbox(ctx, owner, "other-box");
    const bound = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: other.id });
    const missing = await ctx.request("GET", "/api/v1/messages/msg_doesnotexist/events", { key: owner.key });
    expect(missing.status).toBe(404);
    for (const key of [stranger.key, bound]) {
      const answer = await ctx.request("GET", `/api/v1/messages/${sentId}/events`, { key });
      expect(answer.status).toBe(404);
      expect(answer.text).toBe(missing.text);
    }
    const ownBound = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: mailbox.id });
    expect((await ctx.request("GET", `/api/v1/messages/${sentId}/events`, { key: ownBound })).status).toBe(200);
  });

  test("a key that cannot read gets 403 key_scope; no key gets 401", async () => {
    const blind = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false });
    const answer = await ctx.request("GET", `/api/v1/messages/${sentId}/events`, { key: blind });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe("key_scope");
    expect((await ctx.request("GET", `/api/v1/messages/${sentId}/events`)).status).toBe(401);
  });

  test("an unknown type in ?types= is 400; a webhook cannot be given an unknown type", async () => {
    expect((await ctx.request("GET", "/api/v1/events?types=message.exploded", { key: owner.key })).status).toBe(400);
    expect(
      await refusal(
        setWebhook(ctx.svc, { accountId: owner.accountId, url: receiver.url, secret: SECRET, eventTypes: ["message.exploded"] }),
      ),
    ).toMatchObject({ status: 400 });
  });

  test("an account whose webhook chose nothing gets message.received only: no outbound event is posted", async () => {
    const quiet = await makeAccount(ctx);
    const quietBox = await makeMailbox(ctx, quiet, "quiet");
    await setWebhook(ctx.svc, { accountId: quiet.accountId, url: receiver.url, secret: SECRET });
    const response = await ctx.request("POST", "/api/v1/send", {
      key: quiet.key,
      body: { mailbox_id: quietBox.id, to: "hank@accepts.test", text: "Hello" },
    });
    expect(response.status).toBe(201);
    // The event is in the log; no webhook event row was made for it.
    expect((await eventsOf("message.sent", quiet.key)).map((e) => e.event.message_id)).toEqual([response.body.id]);
    const [rows] = await ctx.sql`select count(*)::int as n from webhook_events where account_id = ${quiet.accountId}`;
    expect(rows!.n).toBe(0);
  });
});

async function deliverReport(to: string, originalMessageId: string, recipient: string): Promise<void> {
  const raw = [
    "From: Mail Delivery System <MAILER-DAEMON@mx.accepts.test>",
    `To: ${to}`,
    "Subject: Undelivered Mail Returned to Sender",
    `Message-ID: <${crypto.randomUUID()}@mx.accepts.test>`,
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
    "",
    "--b1",
    "Content-Type: text/plain",
    "",
    "Your message could not be delivered.",
    "",
    "--b1",
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.accepts.test",
    "",
    `Final-Recipient: rfc822; ${recipient}`,
    "Action: failed",
    "Status: 5.1.1",
    "Remote-MTA: dns; mx.accepts.test",
    `Diagnostic-Code: smtp; 550 5.1.1 <${recipient}>: mailbox does not exist`,
    "",
    "--b1",
    "Content-Type: text/rfc822-headers",
    "",
    `To: ${recipient}`,
    `Message-ID: ${originalMessageId}`,
    "",
    "--b1--",
    "",
  ].join("\r\n");
  const conn = await openSmtp(smtp.port);
  try {
    await conn.command("EHLO mx.accepts.test");
    expect((await conn.command("MAIL FROM:<>")).code).toBe(250);
    expect((await conn.command(`RCPT TO:<${to}>`)).code).toBe(250);
    expect((await conn.data(raw)).code).toBe(250);
  } finally {
    conn.close();
  }
}
