// Step 5, record and notify: the verdicts and the webhook event commit in one transaction. A
// message already processed is left alone (a retried job), and only a deliverable verdict
// notifies: never a virus, spam only when the mailbox sets deliver_spam. The search document is
// computed here, after the SMTP 250 and after the attachments' text was stored (injection step),
// not in the accept transaction (sql/0020): the message becomes searchable once screened. It is
// built from the whole body_clean screening read, so a body whose row keeps only a prefix (the
// object store's threshold) is indexed as far as one kept in its row (the function's own cap).
import type { AuthOutcome } from "../../mail/authenticate.ts";
import { replyText } from "../../mail/reply-text.ts";
import type { Services } from "../services.ts";
import { createMessageReceivedEvent } from "../webhooks/index.ts";
import type { ScreeningRow, SpamRisk, StoredComprehension, VirusRisk } from "./types.ts";

export type ScreeningResult = { auth: AuthOutcome; virusRisk: VirusRisk; spamRisk: SpamRisk; comprehension: StoredComprehension };

/** Whether the message is pushed to the account's webhook. */
export function deliverable(result: ScreeningResult, message: Pick<ScreeningRow, "deliver_spam">): boolean {
  const status = result.comprehension.status;
  return status !== "skipped_virus" && (status !== "skipped_spam" || message.deliver_spam === true);
}

/**
 * Returns the webhook delivery this created, if any. firstAttemptDelayMs: see
 * createMessageReceivedEvent (the caller attempts the delivery itself once this commits).
 */
export async function recordAndNotify(
  svc: Services,
  message: ScreeningRow,
  result: ScreeningResult,
  options: { firstAttemptDelayMs?: number } = {},
): Promise<string | null> {
  const { sql, config } = svc;
  const { auth, virusRisk, spamRisk, comprehension } = result;
  const status = comprehension.status;
  const deliver = deliverable(result, message);
  return sql.begin(async (tx) => {
    const updated = await tx`
      update messages set auth_results = ${auth.results ? tx.json(auth.results) : null}, spam_risk = ${spamRisk}, virus_risk = ${virusRisk},
        comprehension = ${tx.json(comprehension as never)}, processed_at = now(),
        reply_text = ${replyText({ bodyClean: message.body_clean, bodyRaw: message.body_raw, maxChars: config.bodyCleanMaxChars })},
        search = message_search_document(subject, from_addr, ${message.body_clean}, attachment_text)
      where id = ${message.id} and processed_at is null returning id`;
    if (updated.length === 0 || !deliver) return null;
    const recorded = await createMessageReceivedEvent(
      tx,
      { accountId: message.account_id },
      {
        message_id: message.id,
        mailbox_id: message.mailbox_id,
        thread_id: message.thread_id,
        from: message.from_addr,
        subject: message.subject,
        body: message.body_clean ?? "",
        truncated: message.truncated,
        sanitization: message.sanitization ?? {},
        comprehension_status: status,
        classification: comprehension.classification ?? null,
        extraction: status === "skipped_spam" ? null : (comprehension.extraction ?? null),
        extraction_error: comprehension.extraction_error ?? null,
        confidence: Number(comprehension.confidence ?? 0),
      },
      options,
    );
    return recorded?.deliveryId ?? null;
  });
}
