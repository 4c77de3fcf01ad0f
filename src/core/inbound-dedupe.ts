// One message, one copy: an MTA that never saw our 250 sends the same message again, and an agent
// must not act on it twice. A delivery is a copy of an earlier one when the same mailbox received
// the same Message-ID with the same raw bytes (SHA-256) within the window; the same Message-ID with
// other bytes is a different message (a resend or a forgery) and is stored. A message without a
// Message-ID is always stored.
import type { Db } from "../db.ts";

/** How long a first copy is remembered; documented in docs/recovery.md ("One message, one copy"). */
export const DEDUPE_WINDOW_DAYS = 7;

/**
 * Claims `messageId` as the first copy of this message in this mailbox; run it inside the accept
 * transaction. Returns null when the claim is ours (store the message), or the id of the message
 * that already holds it. A concurrent delivery of the same bytes waits on the primary key until the
 * first transaction ends, then sees its row: both cannot win.
 */
export async function claimFirstCopy(
  tx: Db,
  mailboxId: string,
  rfcMessageId: string | null,
  sha256: string,
  messageId: string,
): Promise<string | null> {
  if (rfcMessageId === null) return null;
  const [claimed] = await tx`
    insert into inbound_first_copies (mailbox_id, rfc_message_id, sha256, message_id)
    values (${mailboxId}, ${rfcMessageId}, ${sha256}, ${messageId})
    on conflict (mailbox_id, rfc_message_id, sha256) do update
      set message_id = excluded.message_id, received_at = now()
      where inbound_first_copies.received_at < now() - make_interval(days => ${DEDUPE_WINDOW_DAYS})
    returning message_id`;
  if (claimed) return null;
  const [earlier] = await tx`
    select message_id from inbound_first_copies
    where mailbox_id = ${mailboxId} and rfc_message_id = ${rfcMessageId} and sha256 = ${sha256}`;
  return earlier!.message_id as string;
}
