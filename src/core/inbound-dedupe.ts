// One message, one copy: an MTA that never saw our 250 sends the same message again, and an agent
// must not act on it twice. A delivery is a copy of an earlier one when the same mailbox received
// the same Message-ID with the same raw bytes (SHA-256) within the window; the same Message-ID with
// other bytes is a different message (a resend or a forgery) and is stored. A message without a
// Message-ID is always stored.
import type { Db } from "../db.ts";

/** How long a first copy is remembered; documented in docs/recovery.md ("One message, one copy"). */
export const DEDUPE_WINDOW_DAYS = 7;

/**
 * Claims `rfcMessageId` as the first copy of this message in this mailbox for `messageId`; run it
 * inside the accept transaction. Resolves to the id of the message that holds the claim: ours when
 * this is the first copy (or the earlier one is older than the window), else the earlier one. A
 * concurrent delivery of the same bytes waits on the primary key until the first transaction ends,
 * then sees its row: both cannot win. The claim row's message id is how the statements after it
 * in the same transaction tell whether to store (`claimedFor`).
 */
export function claimFirstCopy(tx: Db, mailboxId: string, rfcMessageId: string, sha256: string, messageId: string): Promise<string> {
  const stale = tx`claim.received_at < now() - make_interval(days => ${DEDUPE_WINDOW_DAYS})`;
  return tx`
    insert into inbound_first_copies as claim (mailbox_id, rfc_message_id, sha256, message_id)
    values (${mailboxId}, ${rfcMessageId}, ${sha256}, ${messageId})
    on conflict (mailbox_id, rfc_message_id, sha256) do update
      set message_id = case when ${stale} then excluded.message_id else claim.message_id end,
          received_at = case when ${stale} then now() else claim.received_at end
    returning message_id`.then((rows) => rows[0]!.message_id as string);
}

/** SQL condition: one of these message ids holds its claim (taken earlier in this transaction). */
export function claimedFor(tx: Db, messageIds: string[]) {
  return tx`exists (select 1 from inbound_first_copies where message_id = any(${messageIds}::text[]))`;
}
