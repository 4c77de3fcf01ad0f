// The writes that record one outbound message before it is handed to the transport, as ONE
// statement: the month's quota reserved, the unsubscribe token, the message row with its composed
// bytes, and its reconcile job. Nothing is written unless the reservation succeeded.
//
// Why one statement: the reservation is an upsert that locks the account's send_usage row until
// COMMIT, so every concurrent send of that account queues behind whoever holds it. Run as separate
// statements, the lock was held across several round trips to a busy API process (`bench send`
// measured the record step at 440 ms mean at 10 workers, nearly all of it waiting on that lock).
// Inside one statement it is held only while the server finishes the statement and commits.
import type { Config } from "../config.ts";
import type { Db } from "../db.ts";

export type OutboundRecord = {
  messageId: string;
  accountId: string;
  mailboxId: string;
  rfcMessageId: string;
  threadId: string;
  inReplyTo: string | null;
  references: string[];
  from: string;
  to: string;
  subject: string;
  text: string;
  draftId: string | null;
  raw: Uint8Array;
  unsubscribeTokenId: string;
};

/** Writes the record; false (and nothing written) when the month's quota is used up. */
export async function insertOutboundRecord(db: Db, config: Config, r: OutboundRecord): Promise<boolean> {
  const runAt = new Date(Date.now() + config.reconcileGraceSeconds * 1000);
  // The quota rule of monthlyQuotaFor (accounts.ts): the account's own figure, else its plan's.
  const rows = await db`
    with account as (
      select coalesce(monthly_send_quota, case when plan = 'paid' then ${config.paidPlanMonthlyQuota}::int else ${config.freePlanMonthlyQuota}::int end) as quota
      from accounts where id = ${r.accountId}
    ),
    reserved as (
      insert into send_usage as usage (account_id, month, sent)
      select ${r.accountId}, date_trunc('month', now() at time zone 'utc')::date, 1 from account where quota > 0
      on conflict (account_id, month) do update set sent = usage.sent + 1 where usage.sent < (select quota from account)
      returning sent
    ),
    token as (
      insert into unsubscribe_tokens (id, account_id, address, message_id)
      select ${r.unsubscribeTokenId}, ${r.accountId}, ${r.to.toLowerCase()}, ${r.messageId} from reserved
    ),
    message as (
      insert into messages (id, account_id, mailbox_id, direction, rfc_message_id, thread_id, in_reply_to, "references",
        from_addr, to_addr, subject, body_raw, body_clean, truncated, delivery_status, delivery_attempts, draft_id, raw_outbound, search)
      select ${r.messageId}, ${r.accountId}, ${r.mailboxId}, 'out', ${`<${r.rfcMessageId}>`}, ${r.threadId},
        ${r.inReplyTo}, ${r.references}::text[], ${r.from}, ${r.to}, ${r.subject},
        ${r.text}, ${r.text}, false, 'sending', 1, ${r.draftId}, ${r.raw},
        message_search_document(${r.subject}, ${r.from}, ${r.text}, null)
      from reserved
      returning id
    )
    -- Runs after the grace period whatever happens; removed once the outcome is recorded.
    select graphile_worker.add_job('reconcile_send', json_build_object('message_id', id),
      job_key => ${`reconcile:${r.messageId}`}::text, run_at => ${runAt}::timestamptz, max_attempts => 25) is not null as queued
    from message`;
  return rows.length === 1;
}
