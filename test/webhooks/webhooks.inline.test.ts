// The first webhook attempt is made by the screening job itself, right after the verdict and the
// event commit, so a message crosses the queue once, not twice. The deliver_webhook job committed
// with the event stays as the fallback: it is taken away when that attempt settles the delivery,
// replaced by the retry when it fails, and it delivers on its own when the attempt never happened
// (the process died between the commit and the attempt).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { acceptInbound, lookupRecipient } from "../../src/core/inbound/store.ts";
import { INLINE_WEBHOOK_FALLBACK_MS } from "../../src/core/screening/screen.ts";
import { attemptWebhookDelivery } from "../../src/core/webhooks/delivery.ts";
import { createMessageReceivedEvent, nextAttemptJobKey, setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { jobDuration } from "../../src/metrics.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { reusableDataDir, sendMail, waitFor } from "../support/smtp-client.ts";
import { answer, type Receiver, startReceiver } from "../support/webhook-receiver.ts";

const SECRET = "whsec_inline_attempt_secret_0123456789";

let ctx: TestContext;
let smtp: SmtpListener;
// Started by the first test that needs it: the fallback test runs first, with no worker yet.
let worker: WorkerHandle | undefined;
const ensureWorker = async () => {
  worker ??= await startWorker(ctx.svc, ctx.config.databaseUrl!);
};
const receivers: Receiver[] = [];

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1" });
  smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await worker?.stop();
  await smtp.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await ctx.close();
});

async function accountWithReceiver(respond = answer(200, "ok")) {
  const receiver = await startReceiver(respond);
  receivers.push(receiver);
  const account = await makeAccount(ctx);
  const mailbox = await makeMailbox(ctx, account);
  await setWebhook(ctx.svc, { accountId: account.accountId, url: receiver.url, secret: SECRET });
  return { receiver, account, mailbox };
}

/** deliver_webhook jobs still in the queue for one delivery, by key. */
async function webhookJobs(deliveryId: string) {
  return ctx.sql<{ key: string | null; run_at: string }[]>`
    select j.key, j.run_at from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    where t.identifier = 'deliver_webhook' and j.payload->>'delivery_id' = ${deliveryId}`;
}

async function deliverWebhookRuns(): Promise<number> {
  const metric = await jobDuration.get();
  return metric.values
    .filter((v) => v.metricName === "mailbox_job_duration_seconds_count" && v.labels.task === "deliver_webhook")
    .reduce((sum, v) => sum + v.value, 0);
}

const personal = "Hi Jo,\n\nThanks for hosting yesterday. Could you send me the notes from the book club?\n\nMaya";

/**
 * A stored message whose screening job is taken away before any worker runs: its event is
 * committed as screening commits it (with firstAttemptDelayMs), and no attempt is made.
 */
async function commitEventWithoutAttempt(accountId: string, mailbox: { address: string; id: string }, subject: string) {
  const found = await lookupRecipient(ctx.svc, mailbox.address);
  if (found.kind !== "mailbox") throw new Error("the mailbox was not found");
  const raw = Buffer.from(`From: maya@example.org\r\nTo: ${mailbox.address}\r\nSubject: ${subject}\r\n\r\n${personal}\r\n`);
  const [messageId] = await acceptInbound(ctx.svc, raw, [found.mailbox], { remoteIp: null, helo: null, mailFrom: "maya@example.org" });
  await ctx.sql`select graphile_worker.remove_job(${`inbound:${messageId}`})`;
  return ctx.sql.begin((tx) =>
    createMessageReceivedEvent(
      tx,
      { accountId },
      {
        message_id: messageId!,
        mailbox_id: mailbox.id,
        thread_id: "thr_inline_fallback",
        from: "maya@example.org",
        subject,
        body: personal,
        truncated: false,
        sanitization: {},
        comprehension_status: "complete",
        classification: null,
        extraction: null,
        extraction_error: null,
        confidence: 0,
      },
      { firstAttemptDelayMs: INLINE_WEBHOOK_FALLBACK_MS },
    ),
  );
}

describe("the process dies between the commit and its attempt", () => {
  test("the fallback job committed with the event delivers it after INLINE_WEBHOOK_FALLBACK_MS", async () => {
    const { receiver, account, mailbox } = await accountWithReceiver();
    const recorded = await commitEventWithoutAttempt(account.accountId, mailbox, "Inline fallback");
    const committedAt = performance.now();
    expect(recorded?.deliveryId).toMatch(/^whd_/);
    const jobs = await webhookJobs(recorded!.deliveryId!);
    expect(jobs.map((job) => job.key)).toEqual([nextAttemptJobKey(recorded!.deliveryId!)]);
    await ensureWorker();
    const [request] = await receiver.waitForRequests(1, 20_000);
    // Not before the fallback's delay (the worker polls for due jobs every second).
    expect(request!.at - committedAt).toBeGreaterThanOrEqual(INLINE_WEBHOOK_FALLBACK_MS - 100);
    expect(JSON.parse(request!.text).event_id).toBe(recorded!.eventId);
    await waitFor(async () => {
      const [done] = await ctx.sql`select 1 from webhook_deliveries where id = ${recorded!.deliveryId} and state = 'delivered'`;
      return done;
    }, "the fallback to deliver");
  }, 30_000);
});

describe("a job that runs before the delivery's next attempt is due", () => {
  test("sends nothing: the fallback cannot send an attempt's retry early; once due, the attempt goes out", async () => {
    const { receiver, account, mailbox } = await accountWithReceiver();
    const recorded = await commitEventWithoutAttempt(account.accountId, mailbox, "Inline early");
    const deliveryId = recorded!.deliveryId!;
    // What an attempt that failed leaves behind: its retry due later. The fallback job that was
    // already running then reaches the claim.
    await ctx.sql`select graphile_worker.remove_job(${nextAttemptJobKey(deliveryId)})`;
    await ctx.sql`update webhook_deliveries set attempts = 1, next_attempt_at = now() + interval '1 hour' where id = ${deliveryId}`;
    expect(await attemptWebhookDelivery(ctx.svc, deliveryId)).toBe("skipped");
    expect(receiver.requests).toHaveLength(0);
    await ctx.sql`update webhook_deliveries set next_attempt_at = now() - interval '1 second' where id = ${deliveryId}`;
    expect(await attemptWebhookDelivery(ctx.svc, deliveryId)).toBe("delivered");
    expect(receiver.requests).toHaveLength(1);
  }, 30_000);
});

describe("the screening job makes the first attempt", () => {
  beforeAll(ensureWorker);

  test("acknowledged: one request, one attempt, no deliver_webhook job run and none left in the queue", async () => {
    const { receiver, account, mailbox } = await accountWithReceiver();
    const runsBefore = await deliverWebhookRuns();
    await sendMail(smtp.port, { from: "maya@example.org", to: mailbox.address, subject: "Inline one", text: personal });
    await receiver.waitForRequests(1);
    const delivery = await waitFor(async () => {
      const [row] =
        await ctx.sql`select id, attempts from webhook_deliveries where account_id = ${account.accountId} and state = 'delivered'`;
      return row;
    }, "the delivery to be delivered");
    expect(delivery.attempts).toBe(1);
    expect(await webhookJobs(delivery.id)).toHaveLength(0);
    // Past the fallback's delay: nothing runs again, nothing is sent again.
    await Bun.sleep(INLINE_WEBHOOK_FALLBACK_MS + 1_500);
    expect(receiver.requests).toHaveLength(1);
    expect(await deliverWebhookRuns()).toBe(runsBefore);
    const log = await ctx.sql`select status from webhook_attempts where delivery_id = ${delivery.id}`;
    expect(log.map((row) => row.status)).toEqual([200]);
  }, 30_000);

  test("refused with 500: the retry replaces the fallback job, and the next attempt delivers", async () => {
    const { receiver, account, mailbox } = await accountWithReceiver((request, response, index) =>
      (index === 0 ? answer(500, "not yet") : answer(200, "ok"))(request, response, index),
    );
    await sendMail(smtp.port, { from: "maya@example.org", to: mailbox.address, subject: "Inline two", text: personal });
    await receiver.waitForRequests(1);
    const [row] = await waitFor(async () => {
      const rows = await ctx.sql`select id from webhook_deliveries where account_id = ${account.accountId} and attempts = 1`;
      return rows.length ? rows : null;
    }, "the first attempt to be recorded");
    // One job for the delivery, keyed as the next attempt, due about a second after the failure
    // (the schedule's first delay, ±20%), not at the fallback's delay.
    const jobs = await webhookJobs(row!.id);
    if (jobs.length > 0) {
      expect(jobs).toHaveLength(1);
      expect(jobs[0]!.key).toBe(nextAttemptJobKey(row!.id));
    }
    const requests = await receiver.waitForRequests(2, 15_000);
    expect((requests[1]!.at - requests[0]!.at) / 1000).toBeGreaterThanOrEqual(0.8);
    expect((requests[1]!.at - requests[0]!.at) / 1000).toBeLessThan(INLINE_WEBHOOK_FALLBACK_MS / 1000);
    await waitFor(async () => {
      const [done] = await ctx.sql`select 1 from webhook_deliveries where id = ${row!.id} and state = 'delivered' and attempts = 2`;
      return done;
    }, "the delivery to be delivered on the second attempt");
    expect(await webhookJobs(row!.id)).toHaveLength(0);
    await Bun.sleep(INLINE_WEBHOOK_FALLBACK_MS);
    expect(receiver.requests).toHaveLength(2);
  }, 30_000);
});
