// Bounces and complaints that arrive as inbound mail about a message we sent: the failed or
// complaining recipient is suppressed for the account that sent it.
import type { Tx } from "../../db.ts";
import { addressOf, headerFields, isPermanentFailure, parseDeliveryStatus, parseFeedbackReport } from "../../mail/reports.ts";
import { contentBytes } from "../content.ts";
import { addSuppression, type SuppressionReason } from "../outbound/index.ts";
import type { Services } from "../services.ts";
import { recordLifecycleEvent } from "../webhooks/index.ts";

type ReportPart = { content_type: string; content: Uint8Array };

export type ReportOutcome = { kind: "none" } | { kind: "bounce" | "complaint"; suppressed: string[] };

/**
 * A report matched to our outbound message suppresses its recipient and tells the agent, in one
 * transaction: message.bounced (a permanent failure for that recipient, with the status code and
 * the remote server's diagnostic) or message.complained (ARF). The event's dedupe key is the report
 * and the message, so a retried screening job reading the same report says it once.
 */
export async function applyDeliveryReports(
  svc: Pick<Services, "sql" | "blobs" | "log">,
  message: { id: string; account_id: string },
): Promise<ReportOutcome> {
  const db = svc.sql;
  const stored = await db`
    select content_type, content, blob_key, sha256 from attachments where message_id = ${message.id}
      and content_type in ('message/delivery-status', 'message/global-delivery-status', 'message/feedback-report', 'text/rfc822-headers', 'message/rfc822', 'message/global-headers')`;
  const parts: ReportPart[] = await Promise.all(
    stored.map(async (row) => ({ content_type: row.content_type, content: await contentBytes(svc, row as never) })),
  );
  const text = (type: string[]) => parts.filter((p) => type.includes(p.content_type)).map((p) => new TextDecoder().decode(p.content));
  const dsn = text(["message/delivery-status", "message/global-delivery-status"])[0];
  const arf = text(["message/feedback-report"])[0];
  if (!dsn && !arf) return { kind: "none" };

  // The report must be about a message this account sent: match the returned Message-ID.
  const original = text(["text/rfc822-headers", "message/rfc822", "message/global-headers"])[0];
  const originalHeaders = original ? headerFields(original.split(/\r?\n\r?\n/)[0] ?? "") : new Map<string, string>();
  const originalId = originalHeaders.get("message-id");
  if (!originalId) return { kind: "none" };
  const [sent] = await db`
    select id, to_addr, mailbox_id, thread_id, draft_id, subject from messages
    where account_id = ${message.account_id} and direction = 'out' and rfc_message_id = ${originalId.trim()}
    limit 1`;
  if (!sent) return { kind: "none" };

  const suppress = (address: string, reason: SuppressionReason, detail: Record<string, unknown>) =>
    db.begin(async (tx: Tx) => {
      await addSuppression(tx, { accountId: message.account_id, address, reason, sourceMessageId: message.id });
      const type = reason === "bounce" ? "message.bounced" : "message.complained";
      await recordLifecycleEvent(tx, {
        accountId: message.account_id,
        type,
        mailboxId: sent.mailbox_id,
        threadId: sent.thread_id,
        messageId: sent.id,
        draftId: sent.draft_id,
        to: sent.to_addr,
        subject: sent.subject,
        detail: { ...detail, recipient: address, report_message_id: message.id },
        dedupeKey: `${type}:${message.id}:${sent.id}`,
      });
      return address;
    });
  // Anyone who received one of our messages knows its Message-ID: a report may only suppress that
  // message's own (single) recipient, never another address it names.
  const recipient = String(sent.to_addr).toLowerCase();
  if (dsn) {
    const failed = parseDeliveryStatus(dsn).filter((status) => isPermanentFailure(status) && status.recipient === recipient);
    const first = failed[0];
    if (!first) return { kind: "bounce", suppressed: [] };
    return {
      kind: "bounce",
      suppressed: [
        await suppress(recipient, "bounce", {
          status: first.status,
          action: first.action,
          diagnostic: first.diagnostic,
          remote_mta: first.remoteMta,
        }),
      ],
    };
  }
  const report = parseFeedbackReport(arf!);
  const complainer = report.originalRcptTo ?? addressOf(originalHeaders.get("to")) ?? recipient;
  if (complainer !== recipient) return { kind: "complaint", suppressed: [] };
  return { kind: "complaint", suppressed: [await suppress(recipient, "complaint", { feedback_type: report.feedbackType || null })] };
}
