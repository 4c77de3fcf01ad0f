// An account's webhook (set by a human), the message.received events and their deliveries, and
// redrive of dead letters. Delivery attempts live in webhook-delivery.ts.
import type { Db, Sql } from "../../db.ts";
import type { ResolveFn } from "../../mail/resolver.ts";
import { base64, randomBytes } from "../../secrets.ts";
import { errors } from "../errors.ts";
import { appendEvent, EVENT_TYPES, isEventType, type MessageReceivedPayload } from "../events/index.ts";
import { newId } from "../ids.ts";
import { enqueueJob } from "../jobs.ts";
import type { Tenant } from "../principal.ts";
import { checkWebhookTarget, validateWebhookUrl } from "./target.ts";

export type WebhookEndpoint = {
  account_id: string;
  url: string;
  enabled: boolean;
  secret_hint: string;
  /** message.received always; the outbound and review types a human chose. */
  event_types: string[];
  updated_at: string;
};

/**
 * The types a webhook receives, from what a human chose: message.received always (the contract's event, docs/webhooks.md),
 * the others only when named. 400 for a type that does not exist.
 */
export function webhookEventTypes(chosen: readonly string[]): string[] {
  const unknown = chosen.find((type) => !isEventType(type));
  if (unknown !== undefined) throw errors.validation(`unknown event type '${unknown.slice(0, 64)}' (known: ${EVENT_TYPES.join(", ")})`);
  return EVENT_TYPES.filter((type) => type === "message.received" || chosen.includes(type));
}

/** What setting a webhook needs: the database, and the resolver and policy its target is checked with. */
export type WebhookSetter = { sql: Db; resolve: ResolveFn; config: { webhook: { allowPrivateNetworks: boolean } } };

/**
 * Sets and enables the account's webhook. The target is resolved and checked now, so an unsafe or
 * unreachable URL is refused with its reason instead of saved "enabled" to fail every delivery;
 * each attempt checks again (the DNS answer may change).
 */
export async function setWebhook(
  svc: WebhookSetter,
  input: { accountId: string; url: string; secret?: string | null; eventTypes?: readonly string[] },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const db = svc.sql;
  validateWebhookUrl(input.url);
  // Omitted: a new endpoint gets message.received alone, an existing one keeps its choice.
  const types = input.eventTypes === undefined ? null : webhookEventTypes(input.eventTypes);
  // Generated in the Standard Webhooks form, so their libraries take it as it is.
  const secret = input.secret ?? `whsec_${base64(randomBytes(32))}`;
  if (secret.length < 16 || secret.length > 256) throw errors.validation("webhook secret must be 16 to 256 characters");
  await checkWebhookTarget(input.url, svc.resolve, svc.config.webhook.allowPrivateNetworks);
  const [account] = await db`select 1 from accounts where id = ${input.accountId}`;
  if (!account) throw errors.notFound("account");
  await db`
    insert into webhook_endpoints (account_id, url, secret, enabled, event_types)
    values (${input.accountId}, ${input.url}, ${secret}, true, coalesce(${types}::text[], '{message.received}'))
    on conflict (account_id) do update set url = excluded.url, secret = excluded.secret, enabled = true,
      event_types = coalesce(${types}::text[], webhook_endpoints.event_types), updated_at = now()`;
  return { endpoint: (await showWebhook(db, input))!, secret };
}

export async function showWebhook(db: Db, tenant: Tenant): Promise<WebhookEndpoint | null> {
  const { accountId } = tenant;
  const [row] =
    await db`select account_id, url, enabled, secret, event_types, updated_at from webhook_endpoints where account_id = ${accountId}`;
  if (!row) return null;
  return {
    account_id: row.account_id,
    url: row.url,
    enabled: row.enabled,
    secret_hint: `${String(row.secret).slice(0, 10)}…`,
    event_types: row.event_types,
    updated_at: row.updated_at,
  };
}

/** A human chooses which event types the account's webhook receives; false when there is no webhook. */
export async function setWebhookEventTypes(db: Db, tenant: Tenant, chosen: readonly string[]): Promise<boolean> {
  const { accountId } = tenant;
  const types = webhookEventTypes(chosen);
  const rows = await db`
    update webhook_endpoints set event_types = ${types}::text[], updated_at = now() where account_id = ${accountId} returning account_id`;
  return rows.length > 0;
}

export async function disableWebhook(db: Db, tenant: Tenant): Promise<boolean> {
  const { accountId } = tenant;
  return (
    (await db`update webhook_endpoints set enabled = false, updated_at = now() where account_id = ${accountId} returning account_id`)
      .length > 0
  );
}

/** The event recorded, and its webhook delivery when the account has a webhook to deliver to. */
export type RecordedEvent = { eventId: string; deliveryId: string | null };

/**
 * Records the event in the caller's transaction (the one that records the screening result):
 * always in the event log (src/core/events/log.ts), and, when the account has an enabled webhook with
 * a URL and a secret, as a webhook event whose first delivery attempt is enqueued to run at once.
 * Both carry the same payload bytes and event_id.
 *
 * firstAttemptDelayMs: the caller attempts the delivery itself right after its transaction
 * commits (the process_inbound task does), so the job is only the fallback should that attempt
 * never happen (the process dies first): it runs after this delay, and a delivery the caller's
 * attempt settled takes its job away (src/core/webhooks/delivery.ts). Null when nothing was
 * recorded (a retried screening job: the event already exists).
 */
export async function createMessageReceivedEvent(
  db: Db,
  tenant: Tenant,
  payload: Omit<MessageReceivedPayload, "event_id" | "type">,
  options: { firstAttemptDelayMs?: number } = {},
): Promise<RecordedEvent | null> {
  const { accountId } = tenant;
  const eventId = newId("evt");
  const body: MessageReceivedPayload = { event_id: eventId, type: "message.received", ...payload };
  const text = JSON.stringify(body);
  // The webhook's rows first, the event log last: appending takes the account's event lock,
  // which every other message of the account waits for until this transaction commits. The
  // webhook event is written only when the account has a webhook to deliver to, and never beside
  // an event the log already has under another id (a retried job never gets here: recordAndNotify
  // only records a message not yet processed; this keeps it so regardless).
  const inserted = await db`
    insert into webhook_events (id, account_id, message_id, payload)
    select ${eventId}, ${accountId}, ${payload.message_id}, ${text}
    where exists (select 1 from webhook_endpoints where account_id = ${accountId} and enabled and url <> '' and secret <> '')
      and not exists (select 1 from event_log where message_id = ${payload.message_id} and type = 'message.received')
    on conflict do nothing returning id`;
  const deliveryId = inserted.length > 0 ? newId("whd") : null;
  const writes: Promise<unknown>[] = [];
  if (deliveryId) {
    const delay = options.firstAttemptDelayMs ?? 0;
    writes.push(
      Promise.resolve(
        db`insert into webhook_deliveries (id, event_id, account_id, next_attempt_at) values (${deliveryId}, ${eventId}, ${accountId}, now())`,
      ),
      enqueueJob(
        db,
        "deliver_webhook",
        { delivery_id: deliveryId },
        { jobKey: nextAttemptJobKey(deliveryId), maxAttempts: 3, ...(delay > 0 ? { runAt: new Date(Date.now() + delay) } : {}) },
      ),
    );
  }
  // Sent behind the delivery's writes without waiting for them (postgres.js runs them in order on
  // the transaction's connection): the lock is still taken after them, as the last write.
  const appended = appendEvent(db, {
    id: eventId,
    accountId,
    mailboxId: payload.mailbox_id,
    messageId: payload.message_id,
    payload: text,
  });
  const [logged] = await Promise.all([appended, ...writes]);
  // A retried screening job: the event already exists (and so did its webhook rows, which the
  // inserts above left alone).
  if (logged === null) return null;
  return { eventId, deliveryId };
}

/** The job key of a delivery's next attempt (the first, a retry, a redrive). */
export function nextAttemptJobKey(deliveryId: string): string {
  return `webhook:${deliveryId}`;
}

export type DeliverySummary = {
  id: string;
  event_id: string;
  state: "pending" | "delivered" | "dead";
  attempts: number;
  redrives: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
};

export async function listDeliveries(
  db: Db,
  tenant: Tenant,
  options: { deadOnly?: boolean; limit?: number } = {},
): Promise<DeliverySummary[]> {
  const { accountId } = tenant;
  return db<DeliverySummary[]>`
    select id, event_id, state, attempts, redrives, last_status, last_error, next_attempt_at, created_at
    from webhook_deliveries
    where account_id = ${accountId} and (${options.deadOnly ?? false}::boolean = false or state = 'dead')
    order by created_at desc, id desc limit ${Math.min(options.limit ?? 50, 500)}`;
}

/** The attempts of one of the account's deliveries; none for another account's delivery. */
export async function listAttempts(db: Db, tenant: Tenant, deliveryId: string) {
  const { accountId } = tenant;
  return db`
    select attempted_at, url, status, latency_ms, error, response_snippet from webhook_attempts
    where delivery_id = (select id from webhook_deliveries where id = ${deliveryId} and account_id = ${accountId}) order by id`;
}

/** A human re-sends a dead-lettered delivery: same payload, same event_id, a fresh attempt cycle. */
export async function redriveDelivery(sql: Sql, tenant: Tenant, deliveryId: string): Promise<void> {
  const { accountId } = tenant;
  // The row and its job commit together: a pending delivery always has a job to run it.
  await sql.begin((tx) => redriveInTransaction(tx, accountId, deliveryId));
}

async function redriveInTransaction(db: Db, accountId: string, deliveryId: string): Promise<void> {
  const rows = await db`
    update webhook_deliveries set state = 'pending', attempts = 0, redrives = redrives + 1, dead_at = null, next_attempt_at = now(), lease_until = null
    where id = ${deliveryId} and state = 'dead' and account_id = ${accountId}
    returning id`;
  if (rows.length === 0) {
    const [exists] = await db`select state from webhook_deliveries where id = ${deliveryId} and account_id = ${accountId}`;
    if (!exists) throw errors.notFound("delivery");
    throw errors.conflict(`only a dead-lettered delivery can be redriven (this one is ${exists.state})`);
  }
  await enqueueJob(db, "deliver_webhook", { delivery_id: deliveryId }, { jobKey: nextAttemptJobKey(deliveryId), maxAttempts: 3 });
}
