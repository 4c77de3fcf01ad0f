// Account-scoped reads the dashboard needs beside the core functions. The core functions that act
// on a row take the account themselves, so another account's id is not found there.

import { errors } from "../core/errors.ts";
import type { DeliverySummary } from "../core/webhooks/index.ts";
import type { Db } from "../db.ts";

export type MailboxRow = {
  id: string;
  address: string;
  display_name: string | null;
  require_approval: boolean;
  deliver_spam: boolean;
  review_window_hours: number;
  paused_at: string | null;
  paused_by: string | null;
  created_at: string;
};

export async function accountMailboxes(db: Db, accountId: string): Promise<MailboxRow[]> {
  return db<MailboxRow[]>`
    select id, address, display_name, require_approval, deliver_spam, review_window_hours, paused_at, paused_by, created_at from mailboxes
    where account_id = ${accountId} order by created_at desc, id desc limit 1000`;
}

export async function overviewCounts(db: Db, accountId: string) {
  const [row] = await db`
    select
      (select count(*)::int from mailboxes where account_id = ${accountId}) as mailboxes,
      (select count(*)::int from api_keys where account_id = ${accountId} and revoked_at is null) as active_keys,
      (select count(*)::int from drafts where account_id = ${accountId} and status = 'pending_approval' and deleted_at is null) as pending_drafts,
      (select count(*)::int from webhook_deliveries where account_id = ${accountId} and state = 'dead') as dead_deliveries`;
  return row as { mailboxes: number; active_keys: number; pending_drafts: number; dead_deliveries: number };
}

export type PendingDraftRow = {
  id: string;
  mailbox_id: string;
  to: string | null;
  subject: string;
  text: string;
  created_at: string;
  /** the files it sends (draft_attachments), in the order added */
  attachments: { filename: string; content_type: string; size: number }[];
  /** why it is held (the loop guard's words, a pause, the mailbox setting) and when its review expires */
  held_reason: string | null;
  expires_at: string | null;
  key_name: string | null;
  key_hint: string | null;
  /** inbound messages of its thread flagged as a prompt-injection risk, or from a high-risk sender */
  risky_injection: number;
  risky_sender: number;
};

/**
 * The oldest pending drafts of the account, at most `limit`, and how many wait in all. Bounded
 * because keys fill the queue: unbounded, a key could queue drafts until the page cannot render.
 */
export async function pendingDrafts(db: Db, accountId: string, limit: number): Promise<{ drafts: PendingDraftRow[]; total: number }> {
  const rows = await db`
    select drafts.id, drafts.mailbox_id, drafts.to_addr as "to", drafts.subject, drafts.text, drafts.created_at, count(*) over ()::int as total,
      coalesce((select json_agg(json_build_object('filename', a.filename, 'content_type', a.content_type, 'size', a.size)
                  order by a.created_at, a.id)
                from draft_attachments a where a.draft_id = drafts.id), '[]'::json) as attachments,
      coalesce(drafts.held_reason, r.reason) as held_reason, r.expires_at, k.name as key_name, k.key_hint,
      (select count(*)::int from messages m where m.thread_id = drafts.thread_id and m.mailbox_id = drafts.mailbox_id and m.direction = 'in'
         and (m.comprehension ->> 'status' = 'skipped_injection_risk' or m.comprehension -> 'injection' ->> 'risky' = 'true')) as risky_injection,
      (select count(*)::int from messages m where m.thread_id = drafts.thread_id and m.mailbox_id = drafts.mailbox_id and m.direction = 'in'
         and (m.spam_risk = 'high' or m.auth_results ->> 'dmarc' = 'fail')) as risky_sender
    from drafts
      left join draft_reviews r on r.draft_id = drafts.id and r.outcome is null
      left join api_keys k on k.id = drafts.created_by_key_id
    where drafts.account_id = ${accountId} and drafts.status = 'pending_approval' and drafts.deleted_at is null
    order by drafts.created_at, drafts.id limit ${limit}`;
  return { drafts: rows as unknown as PendingDraftRow[], total: rows[0]?.total ?? 0 };
}

/** One delivery of the account, or the one 404. */
export async function accountDelivery(db: Db, accountId: string, id: string): Promise<DeliverySummary> {
  const [row] = await db<DeliverySummary[]>`
    select id, event_id, state, attempts, redrives, last_status, last_error, next_attempt_at, created_at
    from webhook_deliveries where id = ${id} and account_id = ${accountId}`;
  if (!row) throw errors.routeNotFound();
  return row;
}
