// Outbound and review events (message.sent, message.delivered, message.send_failed,
// message.bounced, message.complained, draft.pending_approval, draft.approved, draft.rejected):
// appended to the event log in the caller's transaction, the one that makes the state change the
// event reports, and posted to the account's webhook when a human chose that type for it.
//
// Each transition has one writer, and it calls this: recordOutcome (src/core/outbound/record-outcome.ts) for a
// send's outcome, the draft transition functions (src/core/outbound/drafts.ts) for review, and
// applyDeliveryReports (src/core/inbound/bounces.ts) for reports that arrive later as mail.
import type { Db, Tx } from "../../db.ts";
import { errors } from "../errors.ts";
import {
  EVENT_CHANNEL,
  type EventCursors,
  type EventPayload,
  eventCursors,
  type LifecycleEventPayload,
  type LifecycleEventType,
  lockAccountEvents,
} from "../events/index.ts";
import { newId } from "../ids.ts";
import type { Principal } from "../principal.ts";
import { nextAttemptJobKey } from "./endpoint.ts";

export type LifecycleEvent = {
  accountId: string;
  type: LifecycleEventType;
  mailboxId: string;
  threadId: string;
  messageId: string | null;
  draftId: string | null;
  to: string | null;
  subject: string;
  detail: Record<string, unknown>;
  /** Set when the writer may run twice for the same fact (a retried screening job): the second append does nothing. */
  dedupeKey?: string;
};

/**
 * Appends the event (last write before the caller's COMMIT: it takes the account's event lock,
 * see appendEvent) and, when the account's webhook chose this type, its webhook event and first
 * delivery with a job to run it at once (signed and retried like message.received). Returns the
 * event id, or null when the dedupe key was already used.
 */
export async function recordLifecycleEvent(tx: Tx, event: LifecycleEvent): Promise<string | null> {
  const eventId = newId("evt");
  const deliveryId = newId("whd");
  const payload: LifecycleEventPayload = {
    event_id: eventId,
    type: event.type,
    created_at: new Date().toISOString(),
    mailbox_id: event.mailboxId,
    thread_id: event.threadId,
    message_id: event.messageId,
    draft_id: event.draftId,
    to: event.to,
    subject: event.subject,
    detail: event.detail,
  };
  const text = JSON.stringify(payload);
  // Sent together without waiting (postgres.js runs them in order on the transaction's
  // connection): the lock, then one statement for the log, the NOTIFY and the webhook's rows.
  const locked = lockAccountEvents(tx, event);
  const appended = tx`
    with appended as (
      insert into event_log (id, account_id, mailbox_id, message_id, draft_id, type, dedupe_key, payload)
      values (${eventId}, ${event.accountId}, ${event.mailboxId}, ${event.messageId}, ${event.draftId}, ${event.type},
        ${event.dedupeKey ?? null}, ${text})
      on conflict do nothing returning position
    ),
    notified as (
      select pg_notify(${EVENT_CHANNEL}, json_build_object('a', ${event.accountId}::text, 'p', position::text)::text) from appended
    ),
    hooked as (
      insert into webhook_events (id, account_id, message_id, type, payload)
      select ${eventId}, ${event.accountId}, ${event.messageId}, ${event.type}, ${text} from appended
      where exists (select 1 from webhook_endpoints w where w.account_id = ${event.accountId} and w.enabled and w.url <> ''
        and w.secret <> '' and ${event.type}::text = any (w.event_types))
      returning id
    ),
    delivery as (
      insert into webhook_deliveries (id, event_id, account_id, next_attempt_at)
      select ${deliveryId}, id, ${event.accountId}, now() from hooked returning id
    ),
    queued as (
      select graphile_worker.add_job('deliver_webhook', json_build_object('delivery_id', id), job_key => ${nextAttemptJobKey(deliveryId)}::text,
        max_attempts => 3) from delivery
    )
    select (select position from appended) as position, (select count(*) from notified) as notified, (select count(*) from queued) as queued`;
  const [, rows] = await Promise.all([locked, appended]);
  return rows[0]?.position == null ? null : eventId;
}

export type HistoryItem = { cursor: string; type: string; created_at: string; event: EventPayload };

/**
 * An outbound message's history (GET /api/v1/messages/{id}/events), oldest first: its draft's
 * review, its send's outcome, later bounces and complaints, including those of earlier attempts
 * from the same draft (each event names its message). For an inbound message: its
 * message.received. Events are kept as long as the event log keeps them (EVENT_RETENTION_DAYS).
 * A failed send leaves no message row, so the log itself says whose the id was: another
 * account's, or another mailbox's for a bound key, is the one 404.
 */
export async function messageHistory(db: Db, principal: Principal, messageId: string): Promise<HistoryItem[]> {
  const rows = await db`
    with target as (
      select id, draft_id from messages
      where id = ${messageId} and account_id = ${principal.accountId} and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
    )
    select e.position, e.type, e.created_at, e.payload, exists (select 1 from target) as found from event_log e
    where e.account_id = ${principal.accountId} and (${principal.mailboxId}::text is null or e.mailbox_id = ${principal.mailboxId})
      and (e.message_id = ${messageId} or e.draft_id = (select draft_id from target))
    union all
    select null, null, null, null, true from target
    order by 1 nulls last limit ${MAX_HISTORY + 1}`;
  const events = rows.filter((row) => row.position !== null);
  if (events.length === 0 && !rows.some((row) => row.found)) throw errors.notFound("message");
  const cursors = await eventCursors(db);
  return events.slice(0, MAX_HISTORY).map((row) => historyItem(row, principal.accountId, cursors));
}

/** A draft's history (GET /api/v1/drafts/{id}/events), also once it is sent, rejected or deleted. */
export async function draftHistory(db: Db, principal: Principal, draftId: string): Promise<HistoryItem[]> {
  const [draft] = await db`
    select id from drafts
    where id = ${draftId} and account_id = ${principal.accountId} and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})`;
  if (!draft) throw errors.notFound("draft");
  const rows = await db`
    select position, type, created_at, payload from event_log
    where account_id = ${principal.accountId} and draft_id = ${draftId} order by position limit ${MAX_HISTORY}`;
  const cursors = await eventCursors(db);
  return rows.map((row) => historyItem(row, principal.accountId, cursors));
}

const MAX_HISTORY = 200;

/** `cursor`: the account's opaque cursor for the event, usable as `after` on GET /api/v1/events. */
function historyItem(row: Record<string, unknown>, accountId: string, cursors: EventCursors): HistoryItem {
  return {
    cursor: cursors.encode(accountId, row.position as string),
    type: String(row.type),
    created_at: new Date(row.created_at as string).toISOString(),
    event: JSON.parse(row.payload as string) as EventPayload,
  };
}
