// The writes that record one outbound message before it is handed to the transport, as ONE
// statement: the unsubscribe token, the message row with its composed bytes, its reconcile job,
// and last the month's quota reservation (sql/0021's reserve_send), which raises when the quota is
// used up and so rolls all of it back.
//
// Why one statement, the reservation last: the reservation locks the account's send_usage row
// until COMMIT, so every concurrent send of that account queues behind whoever holds it. Run as
// separate statements in a transaction, the lock would be held across several round trips to a
// busy API process, and concurrent sends would spend their time waiting on it. Here it is held
// only while the server ends the statement and commits.
import type { Config } from "../../config.ts";
import type { Db } from "../../db.ts";

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

/** reserve_send's SQLSTATE when the month's quota is used up. */
const QUOTA_EXHAUSTED = "MQ402";

/** Writes the record; false (and nothing written) when the month's quota is used up. */
export async function insertOutboundRecord(db: Db, config: Config, r: OutboundRecord): Promise<boolean> {
  const runAt = new Date(Date.now() + config.reconcileGraceSeconds * 1000);
  try {
    // The inner query (OFFSET 0 keeps it a separate step) writes the token, the message and its
    // job; the outer one reserves the quota for the row it yields, so the reservation comes last.
    await db`
      with token as (
        insert into unsubscribe_tokens (id, account_id, address, message_id)
        values (${r.unsubscribeTokenId}, ${r.accountId}, ${r.to.toLowerCase()}, ${r.messageId})
        returning id
      ),
      message as (
        insert into messages (id, account_id, mailbox_id, direction, rfc_message_id, thread_id, in_reply_to, "references",
          from_addr, to_addr, subject, body_raw, body_clean, truncated, delivery_status, delivery_attempts, delivery_started_at, draft_id, raw_outbound, search)
        values (${r.messageId}, ${r.accountId}, ${r.mailboxId}, 'out', ${`<${r.rfcMessageId}>`}, ${r.threadId},
          ${r.inReplyTo}, ${r.references}::text[], ${r.from}, ${r.to}, ${r.subject},
          ${r.text}, ${r.text}, false, 'sending', 1, now(), ${r.draftId}, ${r.raw},
          message_search_document(${r.subject}, ${r.from}, ${r.text}, null))
        returning id
      )
      select reserve_send(${r.accountId}, ${config.freePlanMonthlyQuota}::int, ${config.paidPlanMonthlyQuota}::int)
      from (
        -- Runs after the grace period whatever happens; removed once the outcome is recorded.
        select graphile_worker.add_job('reconcile_send', json_build_object('message_id', message.id),
          job_key => ${`reconcile:${r.messageId}`}::text, run_at => ${runAt}::timestamptz, max_attempts => 25)
        from message, token
        offset 0
      ) queued`;
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === QUOTA_EXHAUSTED) return false;
    throw error;
  }
}
