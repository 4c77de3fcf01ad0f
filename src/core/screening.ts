// Screening and comprehension of one inbound message, run by the process_inbound task after the
// listener committed it, as named steps in src/core/screening/: virus, spam, injection,
// comprehension, then record and notify. Sender authentication and bounce handling run between
// the scanners and the judgements. The result and the webhook event commit in one transaction; a
// message already processed is left alone (the task is idempotent).
import { authenticateInbound, type AuthOutcome } from "../mail/authenticate.ts";
import { applyDeliveryReports } from "./bounces.ts";
import type { Services } from "./services.ts";
import { comprehend } from "./screening/comprehend.ts";
import { screenInjection } from "./screening/injection.ts";
import { deliverable, recordAndNotify, type ScreeningResult } from "./screening/record.ts";
import { askSpamd, judgeSpam } from "./screening/spam.ts";
import type { Attempt, ScreeningRow } from "./screening/types.ts";
import { scanVirus } from "./screening/virus.ts";
import { stopwatch } from "./stage-times.ts";

export type { ComprehensionStatus } from "./screening/types.ts";

/** Scanner failures retry the job this many times before the message goes on without a verdict. */
export const SCANNER_ATTEMPTS = 3;

export async function screenMessage(svc: Services, messageId: string, jobAttempt = 1): Promise<void> {
  const { sql, config, log } = svc;
  const watch = stopwatch();
  const [message] = await watch.time(
    "load",
    () => sql<ScreeningRow[]>`
    select m.id, m.account_id, m.mailbox_id, m.thread_id, m.from_addr, m.subject, m.body_clean, m.body_raw, m.hidden_text, m.truncated,
      m.sanitization, m.processed_at, m.unread_content, m.headers, r.content, r.remote_ip, r.helo, r.mail_from, r.received_at,
      b.deliver_spam, s.schema as extraction_schema
    from messages m
      left join raw_messages r on r.id = m.raw_message_id
      join mailboxes b on b.id = m.mailbox_id
      left join extraction_schemas s on s.id = b.extraction_schema_id
    where m.id = ${messageId}`,
  );
  if (!message) return log.warn("inbound.missing", { message_id: messageId });
  if (message.processed_at) return;
  const raw: Uint8Array = message.content ?? new Uint8Array();
  const attempt: Attempt = { messageId, lastChance: jobAttempt >= SCANNER_ATTEMPTS };

  // The scanners first: their failures retry the job, so they run before work that should not repeat.
  const virusRisk = await watch.time("clamd", () => scanVirus(svc, raw, attempt));
  const spamd = await watch.time("spamd", () => askSpamd(svc, raw, virusRisk, attempt));

  const auth: AuthOutcome = await watch.time("auth", () =>
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
  );
  const report = await watch.time("reports", () => applyDeliveryReports(sql, { id: message.id, account_id: message.account_id }));

  const spam = await watch.time("classifier", () => judgeSpam(svc, message, raw, auth, spamd, virusRisk));
  const injection = await watch.time("injection", () => screenInjection(svc, message, virusRisk));
  const comprehension = await watch.time("comprehension", () => comprehend(svc, message, { virusRisk, spam, injection }));
  const result: ScreeningResult = { auth, virusRisk, spamRisk: spam.risk, comprehension };
  await watch.time("record", () => recordAndNotify(svc, message, result));

  log.info("inbound.processed", {
    message_id: messageId,
    auth: auth.results,
    report: report.kind,
    virus_risk: virusRisk,
    spam_risk: spam.risk,
    injection_score: injection.body.score,
    comprehension_status: comprehension.status,
    webhook: deliverable(result, message),
    stages_ms: watch.times,
  });
}
