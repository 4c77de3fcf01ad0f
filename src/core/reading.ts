// What the reading endpoints (threads, search) show of a message beyond the contract's list item (docs/api.md): the
// text its author added (reply_text) and its attachments with their extracted text.
import type { Db } from "../db.ts";
import { replyTextOfPlain } from "../mail/reply-text.ts";

export type AttachmentWithText = {
  id: string;
  filename: string | null;
  content_type: string;
  size: number;
  sha256: string;
  /** null until the worker has read the attachment */
  text_status: "ok" | "empty" | "unsupported" | "too_large" | "error" | null;
  text_method: string | null;
  text_error: string | null;
  text: string | null;
  /** the prompt-injection verdict on the text: treat a risky text as hostile data */
  text_injection: { score: number; risky: boolean } | null;
};

/** The stored reply text, or (before the worker has run) the same rules applied to the clean body. */
export function replyTextOf(row: { reply_text: string | null; body_clean: string | null }): string | null {
  return row.reply_text ?? replyTextOfPlain(row.body_clean);
}

/** A short, one-line preview of what the author wrote. */
export function snippetOf(text: string | null, max = 160): string {
  const line = (text ?? "").replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

export async function attachmentsOf(db: Db, messageIds: string[]): Promise<Map<string, AttachmentWithText[]>> {
  const byMessage = new Map<string, AttachmentWithText[]>();
  if (messageIds.length === 0) return byMessage;
  const rows = await db`
    select message_id, id, filename, content_type, size, sha256, text_status, text_method, text_error, text,
      case when text_injection is null then null
        else jsonb_build_object('score', text_injection->'score', 'risky', text_injection->'risky') end as text_injection
    from attachments where message_id = any(${messageIds}::text[]) order by message_id, id`;
  for (const { message_id: messageId, ...attachment } of rows) {
    const list = byMessage.get(messageId) ?? [];
    list.push(attachment as AttachmentWithText);
    byMessage.set(messageId, list);
  }
  return byMessage;
}
