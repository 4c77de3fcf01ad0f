// Recording an outbound delivery's outcome: the one place it is written, for the send, draft send,
// approval and the reconcile task alike. With the message's new state, in the same transaction:
// the outcome for the client_id tied to the message, the draft's new status, and the events.

import type { Db, Tx } from "../../db.ts";
import { enqueueJob } from "../jobs.ts";
import type { Tenant } from "../principal.ts";
import type { Services } from "../services.ts";
import type { DeliveryOutcome } from "../transport.ts";
import { recordLifecycleEvent } from "../webhooks/index.ts";
import { finishByMessage } from "./idempotency.ts";
import { type DispatchResult, sendOutcomeOf } from "./outcome.ts";
import { releaseSend } from "./quota.ts";

/** The outbound row as the outcome's statement returns it: what its event names. */
export type OutcomeRow = {
  created_at: string;
  mailbox_id: string;
  thread_id: string;
  draft_id: string | null;
  to_addr: string;
  subject: string;
};

/** A send's final word as its events tell it: a transport outcome, or the reconcile task giving up. */
export type RecordedOutcome = DeliveryOutcome | { kind: "gave_up"; error: string };

/**
 * The events of a recorded outcome, in the transaction that records it: message.sent (and
 * message.delivered when the transport's 250 came from the recipient's own server: direct MX, or
 * our own mailbox), message.send_failed (`outcome`: refused, temporary with will_retry when the
 * reconcile task tries again, or unknown: the final dot went out and no reply was read, so it may
 * have arrived). Every path that records an outcome comes here: recordOutcome below, and the
 * reconcile task when it gives a draft up (src/core/outbound/reconcile.ts).
 */
export async function recordOutcomeEvents(
  tx: Tx,
  transportName: string,
  tenant: Tenant,
  messageId: string,
  row: OutcomeRow,
  outcome: RecordedOutcome,
  options: { willRetry?: boolean } = {},
): Promise<void> {
  const { accountId } = tenant;
  const base = {
    accountId,
    mailboxId: row.mailbox_id,
    threadId: row.thread_id,
    messageId,
    draftId: row.draft_id,
    to: row.to_addr,
    subject: row.subject,
  };
  if (outcome.kind === "sent") {
    // Both appends are sent before either answers (postgres.js runs them in order on the
    // transaction's connection): recordOutcome sends its COMMIT right behind them.
    const sent = recordLifecycleEvent(tx, {
      ...base,
      type: "message.sent",
      detail: { provider_message_id: outcome.providerMessageId, transport: transportName, response: outcome.response },
      dedupeKey: `sent:${messageId}`,
    });
    const finalHop = transportName === "mx" ? "recipient_mx" : transportName === "local" ? "local_mailbox" : null;
    const delivered = finalHop
      ? recordLifecycleEvent(tx, {
          ...base,
          type: "message.delivered",
          detail: { next_hop: finalHop, response: outcome.response },
          dedupeKey: `delivered:${messageId}`,
        })
      : null;
    await Promise.all([sent, delivered]);
    return;
  }
  const kind = outcome.kind === "permanent" ? "refused" : outcome.kind === "unknown" ? "unknown" : "temporary";
  await recordLifecycleEvent(tx, {
    ...base,
    type: "message.send_failed",
    detail: {
      outcome: kind,
      error: outcome.error,
      response_code: "responseCode" in outcome ? (outcome.responseCode ?? null) : null,
      permanent: outcome.kind === "permanent",
      will_retry: options.willRetry === true,
      transport: transportName,
    },
  });
}

/**
 * The one place an outbound delivery's outcome is recorded (the send, draft send, approval and
 * the reconcile task all come here):
 * sent → the message is visible as sent. permanent or transient → it never left: the row goes
 * (a draft's transient failure keeps it for the reconcile task to retry) and the quota is given
 * back. unknown → the final dot went out and no reply was read: the message stays 'unknown' for
 * good (never recorded as sent), and a draft is given back by the reconcile task.
 * In the same transaction: the outcome for the client_id tied to the message (finishByMessage),
 * the draft's new status (draftFollowsOutcome), and the outcome's events (recordOutcomeEvents).
 * Returns false when the attempt no longer owns the message (the reconcile task took it over, or
 * already decided): nothing is written then.
 */
export async function recordOutcome(
  svc: Services,
  result: DispatchResult,
  tenant: Tenant,
  options: { keepForRetry: boolean },
): Promise<boolean> {
  const { accountId } = tenant;
  const { config } = svc;
  const { messageId, outcome, attempt } = result;
  const stageReached = outcome.stage ?? null;
  const reconcileJob = `reconcile:${messageId}`;
  // Only the attempt still recorded as in flight may write its outcome: if reconciliation has
  // taken over or decided (an attempt that outlived the grace period), its decision stands.
  // Sent: the row and the removal of its reconcile job in one statement (atomic by itself).
  const markSent = (db: Db, providerMessageId: string) => db<OutcomeRow[]>`
    with applied as (
      update messages set delivery_status = 'sent', provider_message_id = ${providerMessageId}, delivery_error = null, raw_outbound = null,
        delivery_stage = ${stageReached}
      where id = ${messageId} and delivery_status = 'sending' and delivery_attempts = ${attempt}
      returning created_at, mailbox_id, thread_id, draft_id, to_addr, subject
    )
    select applied.*, graphile_worker.remove_job(${reconcileJob}) is not null as removed from applied`;
  const late = () => svc.log.warn("outbound.outcome_after_reconciliation", { message_id: messageId, outcome: outcome.kind, attempt });

  // Always a transaction: the outcome's events commit with it. The events are its last statements,
  // and the callback returns without waiting for their answers, so postgres.js writes the COMMIT
  // right behind them: the account's event lock, which every event of the account waits for, is
  // then held only while the server runs them and commits, not also for a round trip to this
  // process. Should an append fail, PostgreSQL answers that COMMIT with a rollback of the whole
  // outcome, and the failure is thrown below, as it would have been from inside the transaction.
  let events: Promise<void> | null = null;
  const recorded = await svc.sql.begin(async (tx) => {
    let applied: OutcomeRow[];
    let willRetry = false;
    if (outcome.kind === "sent") {
      applied = await markSent(tx, outcome.providerMessageId);
    } else if (outcome.kind === "unknown") {
      applied = await tx<OutcomeRow[]>`
        update messages set delivery_status = 'unknown', delivery_error = ${outcome.error}, delivery_stage = ${stageReached}
        where id = ${messageId} and delivery_status = 'sending' and delivery_attempts = ${attempt}
        returning created_at, mailbox_id, thread_id, draft_id, to_addr, subject`;
      if (applied.length > 0) {
        // A draft waits in 'sending' (docs/api.md) until the reconcile task gives it back; a send has
        // its answer already (stored below for its client_id), so its job goes.
        if (result.draftId) {
          await enqueueJob(
            tx,
            "reconcile_send",
            { message_id: messageId },
            { jobKey: reconcileJob, runAt: new Date(Date.now() + config.reconcileGraceSeconds * 1000) },
          );
        } else {
          await tx`select graphile_worker.remove_job(${reconcileJob})`;
        }
        svc.log.warn("outbound.outcome_unknown", {
          message_id: messageId,
          draft_id: result.draftId,
          stage: stageReached,
          error: outcome.error,
        });
      }
    } else if (outcome.kind === "transient" && options.keepForRetry) {
      willRetry = true;
      applied = await tx<OutcomeRow[]>`
        update messages set delivery_status = 'retry', delivery_error = ${outcome.error}, delivery_stage = ${stageReached}
        where id = ${messageId} and delivery_status = 'sending' and delivery_attempts = ${attempt}
        returning created_at, mailbox_id, thread_id, draft_id, to_addr, subject`;
      // Same job key: the pending reconcile job moves earlier instead of a second one appearing.
      if (applied.length > 0) {
        await enqueueJob(
          tx,
          "reconcile_send",
          { message_id: messageId },
          { jobKey: reconcileJob, runAt: new Date(Date.now() + config.deliveryRetrySeconds * 1000) },
        );
      }
    } else {
      applied = await tx<OutcomeRow[]>`
        delete from messages where id = ${messageId} and delivery_status = 'sending' and delivery_attempts = ${attempt}
        returning created_at, mailbox_id, thread_id, draft_id, to_addr, subject`;
      if (applied.length > 0) {
        await tx`select graphile_worker.remove_job(${reconcileJob})`;
        await tx`delete from unsubscribe_tokens where message_id = ${messageId}`;
        await releaseSend(tx, { accountId }, applied[0]!.created_at);
      }
    }
    if (applied.length === 0) {
      late();
      return false;
    }
    await finishByMessage(tx, messageId, sendOutcomeOf(result));
    if (result.draftId) await draftFollowsOutcome(tx, result.draftId, messageId, outcome);
    // Last: the event append takes the account's event lock until COMMIT.
    events = recordOutcomeEvents(tx, svc.transport.name, { accountId }, messageId, applied[0]!, outcome, { willRetry });
    events.catch(() => {});
    return true;
  });
  if (events) await events;
  return recorded;
}

/**
 * A draft in 'sending' after its message's outcome: sent, or back to `draft` with the refusal for
 * its author to fix. After a temporary failure or an unknown outcome it stays 'sending': the
 * reconcile task retries it or gives it back.
 */
async function draftFollowsOutcome(tx: Tx, draftId: string, messageId: string, outcome: DeliveryOutcome): Promise<void> {
  if (outcome.kind === "sent") {
    await tx`update drafts set status = 'sent', sent_message_id = ${messageId}, updated_at = now() where id = ${draftId} and status = 'sending'`;
  } else if (outcome.kind === "permanent") {
    await giveDraftBack(tx, draftId, outcome.error);
  }
}

/** A draft whose send did not go out returns to its author, with why. */
export async function giveDraftBack(db: Db, draftId: string | null, error: string): Promise<void> {
  if (!draftId) return;
  await db`update drafts set status = 'draft', last_error = ${error}, updated_at = now() where id = ${draftId} and status = 'sending'`;
}
