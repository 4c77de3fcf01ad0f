// One attempt at delivering a webhook, and what follows from its result: delivered on any 2xx;
// otherwise the next retry is scheduled (about 1 min, 5 min, 30 min, 2 h, 12 h, ±20% jitter, or a
// 429's numeric Retry-After up to 24 h), and after the 6th failed attempt the delivery is dead.
// Every attempt is recorded. An attempt holds a lease and leaves a safety job behind, so a worker
// killed mid-attempt is followed by another attempt with the same payload and event_id.

import { webhookAttempts, webhookDeliveryDelay, webhookResponseTime } from "../../metrics.ts";
import { standardWebhookHeaders } from "../../standard-webhooks.ts";
import { SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from "../../webhook-signature.ts";
import { enqueueJob } from "../jobs.ts";
import type { Services } from "../services.ts";
import { stopwatch } from "../stage-times.ts";
import { nextAttemptJobKey } from "./endpoint.ts";
import { postWebhook } from "./post.ts";
import { resolveWebhookTarget } from "./target.ts";

const MAX_RETRY_AFTER_SECONDS = 24 * 3600;
const JITTER = 0.2;

export type AttemptResult = "delivered" | "retry_scheduled" | "dead" | "skipped";

/** The delay before retry number `retry` (1-based), jittered ±20%. */
export function retryDelaySeconds(schedule: number[], retry: number, random: () => number = Math.random): number {
  const base = schedule[Math.min(retry, schedule.length) - 1]!;
  return base * (1 - JITTER + 2 * JITTER * random());
}

/** A numeric Retry-After (seconds) up to 24 h, or null when absent or not a number. */
export function retryAfterSeconds(header: string | null): number | null {
  if (header === null || !/^\s*\d+\s*$/.test(header)) return null;
  const seconds = Number(header);
  return seconds <= MAX_RETRY_AFTER_SECONDS ? seconds : null;
}

/**
 * inline: the attempt screening makes right after committing the event, while the delivery's
 * first job waits as a fallback (see screenMessage): an attempt that settles the delivery takes
 * that job away too (a retry replaces it, as for any attempt).
 */
export async function attemptWebhookDelivery(
  svc: Services,
  deliveryId: string,
  options: { inline?: boolean } = {},
): Promise<AttemptResult> {
  const { sql, config, log } = svc;
  const { timeoutMs, retryScheduleSeconds, allowPrivateNetworks, leaseGraceMs } = config.webhook;
  const maxAttempts = retryScheduleSeconds.length + 1;
  const leaseMs = timeoutMs + leaseGraceMs;
  const safetyJob = `webhook-lease:${deliveryId}`;

  const watch = stopwatch();
  // Take the lease; the safety job commits with it and fires if this attempt never reports back.
  // One statement, so one round trip and atomic without a transaction around it: the lease, the
  // safety job (timed from the database's lease, not this process's clock, so clock skew cannot
  // fire it early; the lease has millisecond precision because the value travels through JS and
  // is compared for equality later), and the account's endpoint (null when there is none).
  const claimed = await watch.time("claim", async () => {
    const [row] = await sql`
      with claimed as (
        update webhook_deliveries d set lease_until = date_trunc('milliseconds', now() + make_interval(secs => ${leaseMs / 1000}))
        from webhook_events e
        where d.id = ${deliveryId} and e.id = d.event_id and d.state = 'pending' and (d.lease_until is null or d.lease_until < now())
          -- Not before the attempt's time: a job that was already running (screening's fallback,
          -- waiting on this row's lock while an attempt recorded its retry) must not send the retry
          -- early. A scheduled job runs at that same run_at by the database's clock, so it passes.
          and (d.next_attempt_at is null or d.next_attempt_at <= now())
        returning d.id, d.account_id, d.event_id, d.attempts, d.lease_until, e.payload, e.message_id, e.created_at as event_created_at
      )
      select c.*,
        (select json_build_object('url', w.url, 'secret', w.secret, 'enabled', w.enabled) from webhook_endpoints w
          where w.account_id = c.account_id) as endpoint,
        graphile_worker.add_job('deliver_webhook', json_build_object('delivery_id', c.id), job_key => ${safetyJob}::text,
          run_at => c.lease_until + interval '1 second', max_attempts => 3) as safety_job
      from claimed c`;
    return row ?? null;
  });
  if (!claimed) return "skipped";

  const endpoint = claimed.endpoint as { url: string; secret: string; enabled: boolean } | null;
  const attempt = claimed.attempts + 1;
  const attemptedAt = new Date();
  let status: number | null = null;
  let error: string | null = null;
  let snippet: string | null = null;
  let latency: number | null = null;
  let retryAfter: number | null = null;
  const url: string = endpoint?.url ?? "";

  if (!endpoint?.enabled) {
    error = "webhook is not configured or disabled";
  } else {
    try {
      const target = await watch.time("resolve", () => resolveWebhookTarget(endpoint.url, svc.resolve, allowPrivateNetworks));
      const timestamp = Date.now();
      const body: string = claimed.payload;
      const headers = await watch.time("sign", async () => ({
        [SIGNATURE_HEADER]: await signWebhook(endpoint.secret, timestamp, body),
        [TIMESTAMP_HEADER]: String(timestamp),
        ...(await standardWebhookHeaders(endpoint.secret, claimed.event_id, timestamp, body)),
        "user-agent": "agent-mailbox-webhooks/1",
      }));
      const response = await watch.time("post", () => postWebhook(target, body, headers, timeoutMs));
      status = response.status;
      snippet = response.snippet;
      latency = response.latencyMs;
      if (status === 429) retryAfter = retryAfterSeconds(response.retryAfter);
    } catch (failure) {
      error = (failure as Error).message.slice(0, 500);
    }
  }

  const delivered = status !== null && status >= 200 && status < 300;
  let result: AttemptResult;
  await watch.time("record", () =>
    sql.begin(async (tx) => {
      // Statements that do not depend on each other's results are sent without waiting between
      // them (postgres.js runs them in order on the transaction's connection): round trips, not
      // statements, are what an attempt waits for on a busy database.
      const [, held] = await Promise.all([
        tx`
        insert into webhook_attempts (delivery_id, attempted_at, url, status, latency_ms, error, response_snippet)
        values (${deliveryId}, ${attemptedAt}, ${url}, ${status}, ${latency}, ${error}, ${snippet})`,
        // Only the attempt that still holds the lease decides: one that outlived it was already
        // followed by another attempt, whose state and safety job must stand.
        tx`select 1 from webhook_deliveries where id = ${deliveryId} and lease_until = ${claimed.lease_until} for update`,
      ]);
      if (held.length === 0) {
        result = "skipped";
        return;
      }
      const writes: PromiseLike<unknown>[] = [tx`select graphile_worker.remove_job(${safetyJob})`];
      if (options.inline && (delivered || attempt >= maxAttempts))
        writes.push(tx`select graphile_worker.remove_job(${nextAttemptJobKey(deliveryId)})`);
      const failure = error ?? `HTTP ${status}`;
      if (delivered) {
        result = "delivered";
        writes.push(tx`
        update webhook_deliveries set state = 'delivered', attempts = ${attempt}, last_status = ${status}, last_error = null,
          delivered_at = now(), lease_until = null, next_attempt_at = null
        where id = ${deliveryId}`);
      } else if (attempt >= maxAttempts) {
        result = "dead";
        writes.push(tx`
        update webhook_deliveries set state = 'dead', attempts = ${attempt}, last_status = ${status}, last_error = ${failure},
          dead_at = now(), lease_until = null, next_attempt_at = null
        where id = ${deliveryId}`);
      } else {
        result = "retry_scheduled";
        const delay = retryAfter ?? retryDelaySeconds(retryScheduleSeconds, attempt);
        const runAt = new Date(Date.now() + delay * 1000);
        writes.push(
          tx`
          update webhook_deliveries set attempts = ${attempt}, last_status = ${status}, last_error = ${failure}, lease_until = null, next_attempt_at = ${runAt}
          where id = ${deliveryId}`,
          enqueueJob(tx, "deliver_webhook", { delivery_id: deliveryId }, { jobKey: nextAttemptJobKey(deliveryId), runAt, maxAttempts: 3 }),
        );
      }
      await Promise.all(writes);
    }),
  );
  webhookAttempts.inc({ outcome: result! });
  if (latency !== null) webhookResponseTime.observe(latency / 1000);
  if (result! === "delivered") webhookDeliveryDelay.observe(Math.max(0, Date.now() - Date.parse(claimed.event_created_at)) / 1000);
  log.info("webhook.attempt", {
    delivery_id: deliveryId,
    message_id: claimed.message_id,
    attempt,
    status,
    latency_ms: latency,
    result: result!,
    error,
    stages_ms: watch.times,
  });
  return result!;
}
