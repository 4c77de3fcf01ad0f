// One message, one copy: an MTA that never saw our 250 sends the same message again, and an agent
// must not act on it twice. A delivery is a copy of an earlier one when the same mailbox received
// the same Message-ID with the same bytes (SHA-256, below the trace headers: see copyStart) within
// the window; the same Message-ID with other bytes is a different message (a resend or a forgery)
// and is stored. A message without a Message-ID is always stored.
import { type Bytes, blocksOf, joined } from "../../byte-blocks.ts";
import type { Db } from "../../db.ts";

/** How long a first copy is remembered; documented in docs/recovery.md ("One message, one copy"). */
export const DEDUPE_WINDOW_DAYS = 7;

/**
 * The claims of `rfcMessageId` as the first copy of this message in each mailbox, for use as the
 * `claims` common table expression of the accept statement: returns (mailbox_id, message_id) for
 * each, where message_id is ours when this is the first copy (or the earlier one is older than the
 * window), else the earlier one. A concurrent delivery of the same bytes waits on the primary key
 * until the first transaction ends, then sees its row: both cannot win. Pass the claims in mailbox
 * id order (rows are inserted, and their keys locked, in that order), so that two deliveries to
 * several mailboxes cannot deadlock. The statement's inserts store a mailbox's copy only when its
 * claim holds our message id (`claimHeld`).
 */
export function claimFirstCopies(tx: Db, rfcMessageId: string, sha256: string, claims: { mailboxId: string; messageId: string }[]) {
  const stale = tx`claim.received_at < now() - make_interval(days => ${DEDUPE_WINDOW_DAYS})`;
  const rows = claims
    .map(({ mailboxId, messageId }) => tx`(${mailboxId}, ${rfcMessageId}, ${sha256}, ${messageId})`)
    .reduce((list, row) => tx`${list}, ${row}`);
  return tx`
    insert into inbound_first_copies as claim (mailbox_id, rfc_message_id, sha256, message_id)
    values ${rows}
    on conflict (mailbox_id, rfc_message_id, sha256) do update
      set message_id = case when ${stale} then excluded.message_id else claim.message_id end,
          received_at = case when ${stale} then now() else claim.received_at end
    returning mailbox_id, message_id`;
}

/** SQL condition: one of these message ids holds its claim, in the statement's `claims` expression. */
export function claimHeld(tx: Db, messageIds: string[]) {
  return messageIds.length === 1
    ? tx`exists (select 1 from claims where message_id = ${messageIds[0]!})`
    : tx`exists (select 1 from claims where message_id = any(${messageIds}::text[]))`;
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
 * Where the bytes that identify a copy start: the digest that identifies it is the SHA-256 of the
 * raw message from here on, without the trace header fields at its top. Keyed on the whole raw
 * bytes (as before), an MTA's retry that came by another path (one more or one other Received
 * line) was a different message and was stored twice. Only the leading block is skipped: a
 * Received field below the sender's own headers is content.
 */
export function copyStart(bytes: Bytes): number {
  const blocks = blocksOf(bytes);
  // The scan stops at the header section's end (an empty line) at the latest: when the first
  // block holds that line, the other blocks are never read and need not be joined.
  const head = blocks[0] ?? new Uint8Array();
  const view = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const raw = blocks.length <= 1 || view.includes("\n\n") || view.includes("\n\r\n") ? head : joined(bytes);
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
  return at;
}
