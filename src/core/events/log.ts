// The event log: every message.received event (the webhook's payload and event_id), appended in
// the transaction that records the screening result, and the outbound and review events
// (src/core/webhooks/lifecycle-events.ts), appended in the transaction of the change they report; ordered per account by its position, kept
// EVENT_RETENTION_DAYS (30 by default). Readers page through it with an opaque cursor, the
// position sealed for the reader's account (cursor.ts); positions stay inside.
// The live stream (src/http/event-*.ts) reads the same log.
import type { Db, Sql } from "../../db.ts";
import { errors } from "../errors.ts";
import { assertMailboxAllowed, type Principal, type Tenant } from "../principal.ts";
import { eventCursors } from "./cursor.ts";
import { EVENT_TYPES, type EventPayload, isEventType } from "./payload.ts";

/** NOTIFY channel: its payload is `{"a": account_id, "p": position}`; the log holds the event. */
export const EVENT_CHANNEL = "agent_mailbox_events";
export const MAX_EVENTS_PAGE = 500;

/** Whose events a reader sees: an account, narrowed to one mailbox or not, and to some types or not. */
export type EventScope = { accountId: string; mailboxId: string | null; types?: string[] | null };
/** `cursor` is what the client sees; `position`, the log's own order, stays inside. */
export type LoggedEvent = { cursor: string; position?: string; payload: string; type?: string };

/**
 * Appends in the caller's transaction and announces the position at commit. Returns null when
 * the message already has its event (a retried screening job).
 *
 * Positions of one account must commit in the order they are drawn, or a reader that has seen N
 * could later miss a smaller position committed after it: one appender per account at a time, by
 * a lock held until the caller's transaction ends. Every message of the account waits for that
 * lock, so a caller appends as the last write before COMMIT, and the lock, the insert and the
 * NOTIFY travel together (sent without waiting between them; postgres.js runs them in order on
 * the transaction's connection): one round trip under the lock, then the commit.
 */
export async function appendEvent(
  db: Db,
  event: { id: string; accountId: string; mailboxId: string; messageId: string; payload: string },
): Promise<string | null> {
  const locked = lockAccountEvents(db, event);
  const appended = db`
    with appended as (
      insert into event_log (id, account_id, mailbox_id, message_id, payload)
      values (${event.id}, ${event.accountId}, ${event.mailboxId}, ${event.messageId}, ${event.payload})
      on conflict do nothing returning position
    )
    select position, pg_notify(${EVENT_CHANNEL}, json_build_object('a', ${event.accountId}::text, 'p', position::text)::text) from appended`;
  const [, rows] = await Promise.all([locked, appended]);
  const [row] = rows;
  return row ? String(row.position) : null;
}

/** The account's append lock, held to COMMIT: see appendEvent. */
export function lockAccountEvents(db: Db, tenant: Tenant) {
  return db`select pg_advisory_xact_lock(hashtextextended(${`event_log:${tenant.accountId}`}, 0))`;
}

/** The log position a client's cursor names; "0" (or none) is the start. 400 for a cursor not given to this account. */
export async function positionOf(db: Db, tenant: Tenant, cursor: string | null | undefined): Promise<string> {
  return (await eventCursors(db)).decode(tenant.accountId, cursor);
}

/** The cursor a client of the account is given for a position. */
export async function cursorOf(db: Db, tenant: Tenant, position: string): Promise<string> {
  return (await eventCursors(db)).encode(tenant.accountId, position);
}

/** The reader's scope: a bound key sees its own mailbox only (403 key_scope for another). */
export function scopeFor(principal: Principal, mailboxId: string | null | undefined, types?: string | null): EventScope {
  if (mailboxId) assertMailboxAllowed(principal, mailboxId);
  return { accountId: principal.accountId, mailboxId: mailboxId || principal.mailboxId, types: parseEventTypes(types) };
}

/** `types=message.sent,message.bounced` → the list (400 for an unknown type); omitted or empty: every type. */
export function parseEventTypes(value: string | null | undefined): string[] | null {
  if (value === undefined || value === null || value.trim() === "") return null;
  const types = [...new Set(value.split(",").map((type) => type.trim()))];
  const unknown = types.find((type) => !isEventType(type));
  if (unknown !== undefined)
    throw errors.validation(`types: unknown event type '${unknown.slice(0, 64)}' (known: ${EVENT_TYPES.join(", ")})`);
  return types;
}

/** The events after a log position (not a cursor), each with the cursor its reader is given. */
export async function readEventsAfter(db: Db, scope: EventScope, after: string, limit: number): Promise<LoggedEvent[]> {
  const cursors = await eventCursors(db);
  const rows = await db`
    select position, payload, type from event_log
    where account_id = ${scope.accountId} and position > ${after}::bigint
      and (${scope.mailboxId}::text is null or mailbox_id = ${scope.mailboxId})
      and (${scope.types ?? null}::text[] is null or type = any (${scope.types ?? null}::text[]))
    order by position limit ${Math.min(limit, MAX_EVENTS_PAGE)}`;
  return rows.map((row) => ({
    cursor: cursors.encode(scope.accountId, row.position),
    position: String(row.position),
    payload: row.payload as string,
    type: row.type as string,
  }));
}

/** The newest position in scope (a position, not a cursor): where a stream opened without a cursor starts. */
export async function latestPosition(db: Db, scope: EventScope): Promise<string> {
  const [row] = await db`
    select coalesce(max(position), 0) as position from event_log
    where account_id = ${scope.accountId} and (${scope.mailboxId}::text is null or mailbox_id = ${scope.mailboxId})`;
  return String(row!.position);
}

export type EventPage = { events: { cursor: string; event: EventPayload }[]; next_cursor: string };

/** GET /api/v1/events: the events after a cursor, oldest first; next_cursor resumes after them. */
export async function listEvents(
  db: Db,
  principal: Principal,
  query: { after?: string; mailboxId?: string; limit: number; types?: string },
): Promise<EventPage> {
  const scope = scopeFor(principal, query.mailboxId, query.types);
  const after = await positionOf(db, scope, query.after);
  const events = await readEventsAfter(db, scope, after, query.limit);
  return {
    events: events.map((event) => ({ cursor: event.cursor, event: JSON.parse(event.payload) as EventPayload })),
    next_cursor: events.at(-1)?.cursor ?? (await cursorOf(db, scope, after)),
  };
}

/** Retention: drops events older than `days`, in batches so no single statement holds locks long. */
export async function pruneEventLog(sql: Sql, days: number, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await sql`
      delete from event_log where position in (
        select position from event_log where created_at < now() - make_interval(days => ${days}) order by position limit ${batch})`;
    total += deleted.count;
    if (deleted.count < batch) return total;
  }
}
