// Screening and comprehension of one inbound message, run by the process_inbound task after the
// listener committed it, as named steps in src/core/screening/: virus, spam, injection,
// comprehension, then record and notify. Sender authentication and bounce handling run between
// the scanners and the judgements. The result and the webhook event commit in one transaction; a
// message already processed is left alone (the task is idempotent).

import { errorFields } from "../../log.ts";
import { type AuthOutcome, authenticateInbound } from "../../mail/authenticate.ts";
import { fullContent, smallContent } from "../bytea-slices.ts";
import { contentBytes, fullBodies, type StoredBodies } from "../content.ts";
import { applyDeliveryReports } from "../inbound/index.ts";
import type { Services } from "../services.ts";
import { stopwatch } from "../stage-times.ts";
import { attemptWebhookDelivery } from "../webhooks/index.ts";
import { comprehend } from "./comprehend.ts";
import { screenInjection } from "./injection.ts";
import { deliverable, recordAndNotify, type ScreeningResult } from "./record.ts";
import { screenSenderRisk } from "./sender-risk.ts";
import { settle, unsettle } from "./settle.ts";
import { askSpamScanner, judgeSpam } from "./spam.ts";
import type { Attempt, ScreeningRow } from "./types.ts";
import { scanVirus } from "./virus.ts";

export type { ComprehensionStatus } from "./types.ts";

/** Scanner failures retry the job this many times before the message goes on without a verdict. */
export const SCANNER_ATTEMPTS = 3;

/**
 * How long the first webhook attempt's job waits before it runs when screening attempts the
 * delivery itself: long enough that the attempt right after the commit has taken its lease (and
 * later removes the job), short enough that mail screened by a process that died at that moment
 * is still delivered within seconds. The job running early is harmless: it finds the lease held.
 */
export const INLINE_WEBHOOK_FALLBACK_MS = 5_000;

/**
 * deliverWebhook: once the result and its webhook event are committed, make the first delivery
 * attempt here, in this job (the process_inbound task does), instead of in a deliver_webhook job
 * of its own: no second trip through the queue. The job committed with the event stays behind as
 * the fallback (INLINE_WEBHOOK_FALLBACK_MS) and the attempt's lease and retries work as for any
 * attempt (src/core/webhooks/delivery.ts), so a crash at any point still delivers.
 */
export async function screenMessage(
  svc: Services,
  messageId: string,
  jobAttempt = 1,
  options: { deliverWebhook?: boolean } = {},
): Promise<void> {
  const { sql, config, log } = svc;
  const watch = stopwatch();
  const [stored] = await watch.time(
    "load",
    () => sql<(ScreeningRow & StoredBodies)[]>`
    select m.id, m.account_id, m.mailbox_id, m.thread_id, m.from_addr, m.subject, m.body_clean, m.body_raw, m.hidden_text, m.truncated,
      m.body_raw_key, m.body_raw_sha256, m.body_clean_key, m.body_clean_sha256,
      m.sanitization, m.processed_at, m.unread_content, m.headers, ${smallContent(sql, "r.content")}, r.id as raw_id, r.blob_key, r.sha256 as raw_sha256, r.remote_ip, r.helo, r.mail_from, r.received_at,
      b.address as mailbox_address, b.deliver_spam, s.schema as extraction_schema
    from messages m
      left join raw_messages r on r.id = m.raw_message_id
      join mailboxes b on b.id = m.mailbox_id
      left join extraction_schemas s on s.id = b.extraction_schema_id
    where m.id = ${messageId}`,
  );
  if (!stored) return log.warn("inbound.missing", { message_id: messageId });
  if (stored.processed_at) return;
  // From the object store when it holds the bytes (or a body above its threshold); a store that
  // cannot be read fails the job, which Graphile Worker retries later. Every step reads the whole
  // body, the search document included (record.ts).
  const message: ScreeningRow = await fullBodies(svc, stored);
  const content = message.raw_id ? await fullContent(sql, "raw_messages", message.raw_id, message) : null;
  const raw: Uint8Array = await contentBytes(svc, { content, blob_key: message.blob_key, sha256: message.raw_sha256 });
  const attempt: Attempt = { messageId, lastChance: jobAttempt >= SCANNER_ATTEMPTS };

  // The scanners first: their failures retry the job, so they run before work that should not
  // repeat. clamd, the spam scanner and sender authentication (DNS only, no writes) run side by
  // side: each waits on another process or the network, so the job waits for the slowest, not
  // the sum. The spam scanner's answer is only used when the mail is not a virus, as if it had
  // not been asked: its failure then neither retries the job nor counts.
  const scannersStarted = performance.now();
  const [virusRisk, edgeAnswer, auth] = await Promise.all([
    watch.time("clamd", () => scanVirus(svc, raw, attempt)),
    watch.time(config.screening.spamScanner ?? "spam_scanner", () => settle(askSpamScanner(svc, message, raw, null, attempt))),
    watch.time(
      "auth",
      (): Promise<AuthOutcome> =>
        authenticateInbound({
          raw,
          remoteIp: message.remote_ip ?? "",
          helo: message.helo ?? "",
          mailFrom: message.mail_from ?? "",
          // Local deliveries have no connection to check.
          mode: message.remote_ip ? config.authMode : "off",
          trustedAuthservIds: config.trustedAuthservIds,
          resolver: svc.resolve,
          mtaHostname: config.smtp.hostname,
        }),
    ),
  ]);
  watch.add("scanners", performance.now() - scannersStarted);
  const edgeScan = virusRisk === "high" ? null : unsettle(edgeAnswer);
  const report = await watch.time("reports", () => applyDeliveryReports(svc, { id: message.id, account_id: message.account_id }));

  const spam = await watch.time("classifier", () => judgeSpam(svc, message, raw, auth, edgeScan, virusRisk));
  const injection = await watch.time("injection", () => screenInjection(svc, message, virusRisk));
  const senderRisk = await watch.time("sender_risk", () => screenSenderRisk(svc, message, raw, auth));
  const comprehension = await watch.time("comprehension", () => comprehend(svc, message, { virusRisk, spam, injection, senderRisk }));
  const result: ScreeningResult = { auth, virusRisk, spamRisk: spam.risk, comprehension };
  const inline = options.deliverWebhook === true;
  const deliveryId = await watch.time("record", () =>
    recordAndNotify(svc, message, result, inline ? { firstAttemptDelayMs: INLINE_WEBHOOK_FALLBACK_MS } : {}),
  );
  // The verdict is committed: a failure from here on must not fail (and so repeat) the job. The
  // fallback job delivers what this attempt could not.
  const attempted =
    inline && deliveryId
      ? await watch.time("webhook", () =>
          attemptWebhookDelivery(svc, deliveryId, { inline: true }).catch((error: unknown) => {
            log.warn("webhook.inline_attempt_failed", { message_id: messageId, delivery_id: deliveryId, ...errorFields(error) });
            return null;
          }),
        )
      : null;

  log.info("inbound.processed", {
    message_id: messageId,
    auth: auth.results,
    report: report.kind,
    virus_risk: virusRisk,
    spam_risk: spam.risk,
    injection_score: injection.body.score,
    sender_risk: senderRisk.level,
    comprehension_status: comprehension.status,
    webhook: deliverable(result, message),
    ...(attempted ? { webhook_attempt: attempted } : {}),
    stages_ms: watch.times,
  });
}
