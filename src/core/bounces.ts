// Bounces and complaints that arrive as inbound mail about a message we sent: the failed or
// complaining recipient is suppressed for the account that sent it.
import type { Db } from "../db.ts";
import { addressOf, headerFields, isPermanentFailure, parseDeliveryStatus, parseFeedbackReport } from "../mail/reports.ts";
import { addSuppression, type SuppressionReason } from "./suppressions.ts";

type ReportPart = { content_type: string; content: Uint8Array };

export type ReportOutcome = { kind: "none" } | { kind: "bounce" | "complaint"; suppressed: string[] };

export async function applyDeliveryReports(db: Db, message: { id: string; account_id: string }): Promise<ReportOutcome> {
  const parts = await db<ReportPart[]>`
    select content_type, content from attachments where message_id = ${message.id}
      and content_type in ('message/delivery-status', 'message/global-delivery-status', 'message/feedback-report', 'text/rfc822-headers', 'message/rfc822', 'message/global-headers')`;
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
    select id, to_addr from messages
    where account_id = ${message.account_id} and direction = 'out' and rfc_message_id = ${originalId.trim()}
    limit 1`;
  if (!sent) return { kind: "none" };

  const suppress = async (address: string, reason: SuppressionReason) => {
    await addSuppression(db, { accountId: message.account_id, address, reason, sourceMessageId: message.id });
    return address;
  };
  // Anyone who received one of our messages knows its Message-ID: a report may only suppress that
  // message's own (single) recipient, never another address it names.
  const recipient = String(sent.to_addr).toLowerCase();
  if (dsn) {
    const failed = parseDeliveryStatus(dsn).filter((status) => isPermanentFailure(status) && status.recipient === recipient);
    return { kind: "bounce", suppressed: failed.length > 0 ? [await suppress(recipient, "bounce")] : [] };
  }
  const report = parseFeedbackReport(arf!);
  const complainer = report.originalRcptTo ?? addressOf(originalHeaders.get("to")) ?? recipient;
  if (complainer !== recipient) return { kind: "complaint", suppressed: [] };
  return { kind: "complaint", suppressed: [await suppress(recipient, "complaint")] };
}
