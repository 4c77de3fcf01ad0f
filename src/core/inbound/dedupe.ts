// One message, one copy: an MTA that never saw our 250 sends the same message again, and an agent
// must not act on it twice. A delivery is a copy of an earlier one when the same mailbox received
// the same Message-ID with the same bytes (SHA-256, below the trace headers: see copyDigest) within
// the window; the same Message-ID with other bytes is a different message (a resend or a forgery)
// and is stored. A message without a Message-ID is always stored.
import type { Db } from "../../db.ts";
import { sha256HexNow } from "../../secrets.ts";

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

/**
 * SQL condition: one of these claims (taken earlier in this transaction) is held by its message.
 * Each is looked up by the claim's primary key: a condition on message_id alone is planned, while
 * the table has no statistics yet, as a scan of the whole table, once per statement.
 */
export function claimedFor(tx: Db, rfcMessageId: string, sha256: string, claims: { mailboxId: string; messageId: string }[]) {
  return claims
    .map(
      ({ mailboxId, messageId }) => tx`exists (select 1 from inbound_first_copies
        where mailbox_id = ${mailboxId} and rfc_message_id = ${rfcMessageId} and sha256 = ${sha256} and message_id = ${messageId})`,
    )
    .reduce((either, next) => tx`${either} or ${next}`);
}

// Header fields that servers prepend on the way (RFC 5321 §4.4 trace fields, and their kin that
// receivers and forwarders add above the message): a retry that reached us by another path (a
// backup MX relaying it, another hop of the sender's own) carries other ones. Never content.
const TRACE_FIELDS = new Set([
  "received",
  "return-path",
  "x-received",
  "delivered-to",
  "x-original-to",
  "received-spf",
  "authentication-results",
  "arc-seal",
  "arc-message-signature",
  "arc-authentication-results",
]);

/**
 * The digest that identifies a copy: SHA-256 of the raw message without the trace header fields
 * at its top. Keyed on the whole raw bytes (as before), an MTA's retry that came by another path
 * (one more or one other Received line) was a different message and was stored twice. Only the
 * leading block is skipped: a Received field below the sender's own headers is content.
 */
export function copyDigest(raw: Uint8Array): string {
  let at = 0;
  for (;;) {
    const colon = raw.indexOf(0x3a, at);
    const lineEnd = raw.indexOf(0x0a, at);
    if (colon < 0 || (lineEnd >= 0 && lineEnd < colon)) break;
    const name = Buffer.from(raw.subarray(at, colon)).toString("latin1").trim().toLowerCase();
    if (!TRACE_FIELDS.has(name)) break;
    // The field ends at the first line break not followed by a space or tab (folding).
    let end = lineEnd;
    while (end >= 0 && (raw[end + 1] === 0x20 || raw[end + 1] === 0x09)) end = raw.indexOf(0x0a, end + 1);
    if (end < 0) break;
    at = end + 1;
  }
  return sha256HexNow(at === 0 ? raw : raw.subarray(at));
}
