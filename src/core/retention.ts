// Message retention: once a message is older than its account's retention_days (or the service
// default, RETENTION_DAYS), its content goes — raw bytes, bodies, derived text, attachments, the
// extraction, and the content copies in the event log and webhook events — and a tombstone stays:
// ids, thread, addresses, subject, timestamps and verdicts (spam, virus, auth, classification).
// Event payloads keep their ids and shape, with the body and extraction emptied.
// Threads, event cursors and idempotency answers keep resolving; only content reads come back empty.
//
// Work goes in small batches, each its own short transaction that locks only its own rows
// (SKIP LOCKED), so the purge never holds a long lock and never waits on a busy message.

import type { Sql } from "../db.ts";
import { queueBlobDeletions } from "./content.ts";
import type { Tenant } from "./principal.ts";

export const RETENTION_BATCH = 500;

/** What an event payload's content fields become. */
const REMOVED = { body: "", extraction: null };

/**
 * Empties one batch of expired messages; returns how many. Skipped until their work is done:
 * inbound mail not yet screened, outbound mail whose delivery is still open, and messages whose
 * webhook delivery is still pending (its exact bytes are what the next attempt must send).
 */
export async function purgeExpiredBatch(sql: Sql, defaultDays: number | null, batch = RETENTION_BATCH): Promise<number> {
  return sql.begin(async (tx) => {
    const expired = await tx`
      select m.id, m.raw_message_id from messages m join accounts a on a.id = m.account_id
      where m.purged_at is null
        and coalesce(a.retention_days, ${defaultDays}::int) is not null
        and m.created_at < now() - make_interval(days => coalesce(a.retention_days, ${defaultDays}::int))
        and ((m.direction = 'in' and m.processed_at is not null)
          or (m.direction = 'out' and m.delivery_status is distinct from 'sending' and m.delivery_status is distinct from 'retry'))
        and not exists (select 1 from webhook_events e join webhook_deliveries d on d.event_id = e.id
          where e.message_id = m.id and d.state = 'pending')
      order by m.created_at
      limit ${batch}
      for update of m skip locked`;
    if (expired.length === 0) return 0;
    const ids = expired.map((row) => row.id as string);
    // Bodies in the object store go with the rest, queued before the row forgets their keys.
    const bodies = await tx`
      select body_raw_key, body_clean_key from messages
      where id in ${tx(ids)} and (body_raw_key is not null or body_clean_key is not null)`;
    await queueBlobDeletions(
      tx,
      bodies.flatMap((row) => [row.body_raw_key as string | null, row.body_clean_key as string | null]),
    );
    // The search document keeps only what the tombstone keeps (subject and sender): it is a plain
    // column now (sql/0020), so it is recomputed here rather than following the emptied fields.
    await tx`
      update messages set purged_at = now(), body_raw = null, body_clean = null, hidden_text = null, reply_text = null,
        body_raw_key = null, body_raw_sha256 = null, body_clean_key = null, body_clean_sha256 = null,
        attachment_text = null, unread_content = null, headers = null, raw_outbound = null,
        comprehension = comprehension - 'extraction',
        search = message_search_document(subject, from_addr, null, null)
      where id in ${tx(ids)}`;
    // Objects in the store go with their rows: queued here, deleted once this commits (content.ts).
    const gone = await tx`delete from attachments where message_id in ${tx(ids)} returning blob_key`;
    await queueBlobDeletions(
      tx,
      gone.map((row) => row.blob_key as string | null),
    );
    // One raw message may carry copies for several mailboxes: it is emptied once none still needs it.
    const rawIds = [...new Set(expired.map((row) => row.raw_message_id as string | null).filter((id): id is string => id !== null))];
    if (rawIds.length > 0) {
      const emptied = await tx`
        with emptied as (
          select r.id, r.blob_key from raw_messages r
          where r.id in ${tx(rawIds)} and (octet_length(r.content) > 0 or r.blob_key is not null)
            and not exists (select 1 from messages m where m.raw_message_id = r.id and m.purged_at is null)
          for update
        )
        update raw_messages r set content = ''::bytea, blob_key = null from emptied where r.id = emptied.id
        returning emptied.blob_key`;
      await queueBlobDeletions(
        tx,
        emptied.map((row) => row.blob_key as string | null),
      );
    }
    // Events keep their ids and every field a reader validates; the body and extraction go.
    await tx`
      update event_log set payload = (payload::jsonb || ${tx.json(REMOVED as never)})::text
      where message_id in ${tx(ids)} and payload::jsonb ? 'body'`;
    await tx`
      update webhook_events set payload = (payload::jsonb || ${tx.json(REMOVED as never)})::text
      where message_id in ${tx(ids)} and payload::jsonb ? 'body'`;
    return ids.length;
  });
}

/** Runs batches until none is left or the time budget is spent; returns how many messages were emptied. */
export async function purgeExpiredContent(
  sql: Sql,
  defaultDays: number | null,
  options: { batch?: number; budgetMs?: number } = {},
): Promise<number> {
  const deadline = Date.now() + (options.budgetMs ?? 5 * 60_000);
  let total = 0;
  for (;;) {
    const purged = await purgeExpiredBatch(sql, defaultDays, options.batch);
    total += purged;
    if (purged < (options.batch ?? RETENTION_BATCH) || Date.now() > deadline) return total;
  }
}

/** Sets an account's retention in days (null: the service default); null when there is no such account. */
export async function setAccountRetention(
  sql: Sql,
  tenant: Tenant,
  days: number | null,
): Promise<{ id: string; retention_days: number | null } | null> {
  const { accountId } = tenant;
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > 36500))
    throw new RangeError("retention days must be between 1 and 36500");
  const [row] = await sql`update accounts set retention_days = ${days} where id = ${accountId} returning id, retention_days`;
  return (row as { id: string; retention_days: number | null } | undefined) ?? null;
}
