// Named consumers: several readers share one account's (or one mailbox's) events. Each event is
// leased to one reader at a time until it is acknowledged or its lease runs out (then the next
// claim hands it to another reader); the consumer's progress (everything acknowledged through
// `acked_through`) lives in the database, so a consumer offline for a day resumes where it stopped,
// within the log's retention. Inside, leases and `acked_through` are log positions; a client sees
// and sends them only as its account's cursors (cursor.ts).
import type { Db, Sql } from "../../db.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import { assertMailboxAllowed, type Principal } from "../principal.ts";
import { type EventCursors, eventCursors } from "./cursor.ts";
import { EVENT_CHANNEL, MAX_EVENTS_PAGE } from "./log.ts";
import type { EventPayload } from "./payload.ts";

export const CONSUMER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const MAX_LEASE_SECONDS = 3600;

export type Consumer = { name: string; mailbox_id: string | null; acked_through: string; created_at: string };
type ConsumerRow = Consumer & { id: string; account_id: string };
export type LeasedEvent = { cursor: string; event: EventPayload; lease_expires_at: string; deliveries: number };

function assertName(name: string): void {
  if (!CONSUMER_NAME.test(name))
    throw errors.validation("consumer name must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
}

const present = (row: ConsumerRow, cursors: EventCursors): Consumer => ({
  name: row.name,
  mailbox_id: row.mailbox_id,
  acked_through: cursors.encode(row.account_id, row.acked_through),
  created_at: row.created_at,
});

/** Creates the consumer, or returns it as it is (same name, same mailbox); 409 for another mailbox. */
export async function openConsumer(
  sql: Sql,
  principal: Principal,
  input: { name: string; mailboxId?: string | null },
): Promise<{ consumer: Consumer; created: boolean }> {
  assertName(input.name);
  const cursors = await eventCursors(sql);
  if (input.mailboxId) assertMailboxAllowed(principal, input.mailboxId);
  const mailboxId = input.mailboxId || principal.mailboxId;
  if (mailboxId) {
    const [mailbox] = await sql`select 1 from mailboxes where id = ${mailboxId} and account_id = ${principal.accountId}`;
    if (!mailbox) throw errors.notFound("mailbox");
  }
  const [inserted] = await sql<ConsumerRow[]>`
    insert into event_consumers (id, account_id, name, mailbox_id) values (${newId("con")}, ${principal.accountId}, ${input.name}, ${mailboxId})
    on conflict (account_id, name) do nothing returning *`;
  if (inserted) return { consumer: present(inserted, cursors), created: true };
  const existing = await findConsumer(sql, principal, input.name);
  if (existing.mailbox_id !== mailboxId) throw errors.conflict("a consumer with this name exists for another mailbox scope");
  return { consumer: present(existing, cursors), created: false };
}

/** The consumer if this key may use it; the one 404 otherwise (missing, or another mailbox's for a bound key). */
async function findConsumer(db: Db, principal: Principal, name: string, lock = false): Promise<ConsumerRow> {
  assertName(name);
  const [row] = lock
    ? await db<ConsumerRow[]>`select * from event_consumers where account_id = ${principal.accountId} and name = ${name} for update`
    : await db<ConsumerRow[]>`select * from event_consumers where account_id = ${principal.accountId} and name = ${name}`;
  if (!row || (principal.mailboxId !== null && row.mailbox_id !== principal.mailboxId)) throw errors.notFound("consumer");
  return row;
}

export async function getConsumer(sql: Sql, principal: Principal, name: string): Promise<Consumer> {
  const cursors = await eventCursors(sql);
  return present(await findConsumer(sql, principal, name), cursors);
}

/**
 * Leases up to `limit` events to the caller: the oldest not yet acknowledged whose lease is free
 * (never leased, or run out). Claims on one consumer take turns (the row lock), so two readers
 * never get the same event while its lease holds.
 */
export async function claimEvents(
  sql: Sql,
  principal: Principal,
  name: string,
  options: { limit: number; leaseSeconds: number },
): Promise<LeasedEvent[]> {
  const limit = Math.max(1, Math.min(options.limit, MAX_EVENTS_PAGE));
  const leaseSeconds = Math.max(1, Math.min(options.leaseSeconds, MAX_LEASE_SECONDS));
  const cursors = await eventCursors(sql);
  return sql.begin(async (tx) => {
    const consumer = await findConsumer(tx, principal, name, true);
    const rows = await tx`
      with candidates as (
        select e.position, e.payload from event_log e
        where e.account_id = ${consumer.account_id} and e.position > ${consumer.acked_through}
          and (${consumer.mailbox_id}::text is null or e.mailbox_id = ${consumer.mailbox_id})
          and not exists (
            select 1 from event_leases l where l.consumer_id = ${consumer.id} and l.position = e.position
              and (l.acked_at is not null or l.lease_until > now()))
        order by e.position limit ${limit}
      ), leased as (
        insert into event_leases (consumer_id, position, lease_until)
        select ${consumer.id}, position, now() + make_interval(secs => ${leaseSeconds}) from candidates
        on conflict (consumer_id, position) do update set lease_until = excluded.lease_until, deliveries = event_leases.deliveries + 1
        returning position, lease_until, deliveries
      )
      select c.position, c.payload, l.lease_until, l.deliveries from candidates c join leased l using (position) order by c.position`;
    return rows.map((row) => ({
      cursor: cursors.encode(consumer.account_id, row.position),
      event: JSON.parse(row.payload) as EventPayload,
      lease_expires_at: row.lease_until as string,
      deliveries: Number(row.deliveries),
    }));
  });
}

/**
 * Acknowledges leased events (idempotent; a cursor never leased to this consumer is ignored) and
 * moves acked_through over every acknowledged event with no gap before it.
 */
export async function ackEvents(
  sql: Sql,
  principal: Principal,
  name: string,
  cursors: string[],
): Promise<{ acked: number; acked_through: string }> {
  const codec = await eventCursors(sql);
  const positions = cursors.map((cursor) => codec.decode(principal.accountId, cursor));
  return sql.begin(async (tx) => {
    const consumer = await findConsumer(tx, principal, name, true);
    const acked = await tx`
      update event_leases set acked_at = now()
      where consumer_id = ${consumer.id} and position = any(${positions}::bigint[]) and acked_at is null returning position`;
    const [next] = await tx`
      select greatest(${consumer.acked_through}::bigint, coalesce(
        (select min(e.position) - 1 from event_log e
          where e.account_id = ${consumer.account_id} and e.position > ${consumer.acked_through}
            and (${consumer.mailbox_id}::text is null or e.mailbox_id = ${consumer.mailbox_id})
            and not exists (select 1 from event_leases l where l.consumer_id = ${consumer.id} and l.position = e.position and l.acked_at is not null)),
        (select max(position) from event_leases where consumer_id = ${consumer.id} and acked_at is not null),
        ${consumer.acked_through}::bigint)) as through`;
    const through = String(next!.through);
    await tx`update event_consumers set acked_through = ${through}, updated_at = now() where id = ${consumer.id}`;
    await tx`delete from event_leases where consumer_id = ${consumer.id} and position <= ${through}::bigint`;
    // Readers of this account waiting for room (a stream with its prefetch full) look again.
    if (acked.length > 0) await tx`select pg_notify(${EVENT_CHANNEL}, ${JSON.stringify({ a: consumer.account_id })})`;
    return { acked: acked.length, acked_through: codec.encode(consumer.account_id, through) };
  });
}

/** Leases of this consumer still held (not acknowledged, not run out) among `cursors` (ones claimEvents gave). */
export async function heldLeases(sql: Sql, principal: Principal, name: string, cursors: string[]): Promise<string[]> {
  if (cursors.length === 0) return [];
  const codec = await eventCursors(sql);
  const consumer = await findConsumer(sql, principal, name);
  const positions = cursors.map((cursor) => codec.decode(principal.accountId, cursor));
  const rows = await sql`
    select position from event_leases
    where consumer_id = ${consumer.id} and position = any(${positions}::bigint[]) and acked_at is null and lease_until > now()`;
  return rows.map((row) => codec.encode(consumer.account_id, row.position));
}
