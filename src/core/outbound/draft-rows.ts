// The drafts table as code reads it: the row, the view an API caller gets, and the columns
// every statement selects.

export type DraftStatus = "draft" | "pending_approval" | "sending" | "sent" | "rejected";

export type Draft = {
  id: string;
  mailbox_id: string;
  status: DraftStatus;
  to: string | null;
  subject: string;
  text: string;
  reply_to_message_id: string | null;
  requires_human: boolean;
  thread_id: string;
  created_at: string;
  updated_at: string;
};

export type DraftRow = Draft & {
  account_id: string;
  in_reply_to: string | null;
  references: string[];
  deleted_at: string | null;
  last_error: string | null;
  held_reason: string | null;
  /** timestamps arrive as ISO strings (src/db.ts) */
  scheduled_at: string | null;
  schedule_time_zone: string | null;
  approved_at: string | null;
  decided_by: string | null;
};

export const DRAFT_COLUMNS = `id, account_id, mailbox_id, status, to_addr as "to", subject, text, reply_to_message_id, requires_human,
  thread_id, created_at, updated_at, in_reply_to, "references", deleted_at, last_error, held_reason, scheduled_at, schedule_time_zone,
  approved_at, decided_by`;

export function draftView(row: DraftRow): Draft {
  return {
    id: row.id,
    mailbox_id: row.mailbox_id,
    status: row.status,
    to: row.to,
    subject: row.subject,
    text: row.text,
    reply_to_message_id: row.reply_to_message_id,
    requires_human: row.requires_human,
    thread_id: row.thread_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function draftEventBase(row: DraftRow) {
  return {
    accountId: row.account_id,
    mailboxId: row.mailbox_id,
    threadId: row.thread_id,
    messageId: null,
    draftId: row.id,
    to: row.to,
    subject: row.subject,
  };
}
