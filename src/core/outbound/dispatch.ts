// The send pipeline's last step, shared by POST /send, draft send and approval: compose and sign
// the outbound message, record it, hand it to the transport, record the outcome.
//
// Two writes bracket the transport call, and everything that must agree commits together:
//  1. record: the caller's claim (a draft moved to sending, an idempotency key tied to the
//     message), the quota reservation, the message row and its reconcile job. Anything that
//     throws here (a bad header, a lost claim, the quota) rolls all of it back: nothing was sent.
//  2. outcome: the message's new state, the quota given back when nothing left, and the caller's
//     follow-up (the stored idempotent response, the draft's new status).
// A crash between the two leaves the message and its job: the reconcile task resolves it.
//
// What is sent is known before any write for POST /send: it is composed and signed first, and a
// send without a claim records itself in one statement (outbound-record.ts) with no transaction
// around it. A draft is known only once its row is locked, so it is composed inside that transaction.

import type { Db, Tx } from "../../db.ts";
import { composeUnsigned, signMessage } from "../../mail/compose.ts";
import { sendStageDuration, sends } from "../../metrics.ts";
import { type OutgoingFile, storeMessageAttachments } from "../attachment-bytes.ts";
import { signingKeyFor } from "../domains/index.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import { enqueueJob } from "../jobs.ts";
import type { Mailbox } from "../mailboxes.ts";
import type { Tenant } from "../principal.ts";
import type { Services } from "../services.ts";
import type { DeliveryOutcome } from "../transport.ts";
import { recordLifecycleEvent } from "../webhooks/index.ts";
import { attachMessage, type IdempotencyClaim } from "./idempotency.ts";
import { insertOutboundRecord } from "./outbound-record.ts";
import { type DispatchResult, storeOutcome } from "./outcome.ts";
import { releaseSend } from "./quota.ts";
import { newUnsubscribeLinks } from "./unsubscribe.ts";

export type DispatchContent = {
  mailbox: Mailbox;
  to: string;
  subject: string;
  text: string;
  threadId: string;
  inReplyTo: string | null;
  references: string[];
  draftId: string | null;
  /** Files sent after the text; recorded with the message as its attachments. */
  attachments?: OutgoingFile[];
  /** An iMIP part (an RSVP's REPLY), sent as text/calendar beside the text. */
  calendar?: { method: string; content: string } | null;
  /** True when it answers automatic mail (a human let it through the loop guard): Auto-Submitted: auto-replied. */
  answersAutomatic?: boolean;
};

export type { DispatchResult } from "./outcome.ts";

export type Dispatch = {
  accountId: string;
} & (
  | {
      /** What is sent, known before any write (POST /send): composed and signed before recording. */
      content: DispatchContent;
      prepare?: undefined;
    }
  | {
      /** Inside the record transaction: lock and claim what is being sent, and say what it is. */
      prepare(tx: Tx): Promise<DispatchContent>;
      content?: undefined;
    }
) & {
    /**
     * POST /send's client_id claim: tied to the message in the record transaction, and given the
     * outcome as its stored answer in the outcome transaction (storeOutcome, outcome.ts).
     */
    claim?: IdempotencyClaim;
    /** Inside the record transaction, once the message row is written. */
    afterRecord?(tx: Tx, messageId: string): Promise<void>;
    /** Inside the outcome transaction. */
    onOutcome?(tx: Tx, result: DispatchResult): Promise<void>;
  };

type Composed = { content: DispatchContent; raw: Uint8Array; rfcMessageId: string; unsubscribeTokenId: string };

const stage = (name: string) => sendStageDuration.startTimer({ stage: name });

export async function dispatchMessage(svc: Services, input: Dispatch): Promise<DispatchResult> {
  const { sql, config } = svc;
  const messageId = newId("msg");

  const known = input.content ? await compose(svc, sql, messageId, input.content) : null;
  const record = async (db: Db): Promise<Composed> => {
    const composed = known ?? (await compose(svc, db, messageId, await input.prepare!(db as Tx)));
    const { content } = composed;
    // The quota is the last check before delivery (the order docs/api.md "Sending" lists), and commits with the message.
    const reserved = await insertOutboundRecord(db, config, {
      messageId,
      accountId: input.accountId,
      mailboxId: content.mailbox.id,
      rfcMessageId: composed.rfcMessageId,
      threadId: content.threadId,
      inReplyTo: content.inReplyTo,
      references: content.references,
      from: content.mailbox.address,
      to: content.to,
      subject: content.subject,
      text: content.text,
      draftId: content.draftId,
      raw: composed.raw,
      unsubscribeTokenId: composed.unsubscribeTokenId,
    });
    if (!reserved) throw errors.quotaExhausted();
    if (content.attachments?.length) await storeMessageAttachments(db, messageId, content.attachments);
    // After the record, not before: an idempotency key tied to the message is locked from here to
    // COMMIT, and a concurrent request with the same client_id must get its 409 without waiting
    // behind this send's quota reservation (test/outbound/idempotency.test.ts).
    if (input.claim) await attachMessage(db, input.claim, messageId);
    if (input.afterRecord) await input.afterRecord(db as Tx, messageId);
    return composed;
  };
  const recording = stage("record");
  // One statement commits by itself; a claim or a draft must commit with it.
  const oneStatement = !input.prepare && !input.claim && !input.afterRecord && !input.content?.attachments?.length;
  const { content, raw, rfcMessageId } = oneStatement ? await record(sql) : await sql.begin(record);
  recording();

  const delivering = stage("deliver");
  const outcome = await svc.transport.deliver({ from: content.mailbox.address, to: content.to }, raw, {
    messageId: rfcMessageId,
    beforeFinalDot: () => markFinalDot(sql, messageId, 1),
  });
  delivering();
  const result: DispatchResult = { messageId, threadId: content.threadId, draftId: content.draftId, attempt: 1, outcome };
  const outcomeRecording = stage("outcome");
  const applied = await recordOutcome(svc, result, input, {
    keepForRetry: content.draftId !== null,
    claim: input.claim,
    onOutcome: input.onOutcome,
  });
  outcomeRecording();
  // The reconcile task took this attempt over (it outlived RECONCILE_GRACE_S): its answer is the
  // one that counts, and a retry with the same client_id gets it.
  if (!applied) {
    result.outcome = {
      kind: "unknown",
      error: "the attempt took too long and was handed to reconciliation; retry with the same client_id for the final answer",
    };
  }
  sends.inc({ outcome: outcome.kind });
  svc.log.info("outbound.delivery", {
    message_id: messageId,
    transport: svc.transport.name,
    outcome: outcome.kind,
    draft_id: content.draftId,
  });
  return result;
}

/** The signed bytes of `content`, with the unsubscribe token they carry (stored with the record). */
async function compose(svc: Services, db: Db, messageId: string, content: DispatchContent): Promise<Composed> {
  const { config } = svc;
  const rfcMessageId = `${messageId}@${content.mailbox.domain_name}`;
  const [{ tokenId, links }, dkim] = await Promise.all([newUnsubscribeLinks(db, config), signingKeyFor(db, config, content.mailbox)]);
  const composing = stage("compose");
  const unsigned = await composeUnsigned({
    from: content.mailbox.address,
    fromName: content.mailbox.display_name,
    to: content.to,
    subject: content.subject,
    text: content.text,
    messageId: rfcMessageId,
    inReplyTo: content.inReplyTo,
    references: content.references,
    unsubscribe: links,
    attachments: content.attachments,
    calendar: content.calendar,
    // Every message an agent sends is machine-written (RFC 3834 §5): see docs/decisions.md.
    autoSubmitted: content.answersAutomatic ? "auto-replied" : "auto-generated",
  });
  composing();
  const signing = stage("sign");
  const raw = await signMessage(unsigned, dkim);
  signing();
  return { content, raw, rfcMessageId, unsubscribeTokenId: tokenId };
}

/**
 * Writes that the receiver may now accept the message: called just before the final dot of
 * attempt `attempt` (transport.ts, beforeFinalDot). Only while the row is still that attempt's:
 * a reconcile task that took the message over has bumped delivery_attempts, and then this
 * throws, so a stalled attempt can never put a second copy on the wire.
 */
export async function markFinalDot(db: Db, messageId: string, attempt: number): Promise<void> {
  const rows = await db`
    update messages set final_dot_at = now()
    where id = ${messageId} and delivery_status = 'sending' and delivery_attempts = ${attempt}
    returning id`;
  if (rows.length === 0) throw new Error("the delivery was taken over by reconciliation");
}

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
 * good (never recorded as sent), the caller stores the contract's 502 delivery_outcome_unknown as the
 * answer, and a draft is given back by the reconcile task. The caller's follow-up commits in
 * the same transaction, and so do the outcome's events (recordOutcomeEvents). Returns false when the attempt no longer owns the message (the reconcile
 * task took it over, or already decided): nothing is written then.
 */
export async function recordOutcome(
  svc: Services,
  result: DispatchResult,
  tenant: Tenant,
  options: { keepForRetry: boolean; claim?: IdempotencyClaim; onOutcome?: (tx: Tx, result: DispatchResult) => Promise<void> },
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
        // its answer already (the caller stores it), so its job goes.
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
    if (options.claim) await storeOutcome(tx, options.claim, result);
    if (options.onOutcome) await options.onOutcome(tx, result);
    // Last: the event append takes the account's event lock until COMMIT.
    events = recordOutcomeEvents(tx, svc.transport.name, { accountId }, messageId, applied[0]!, outcome, { willRetry });
    events.catch(() => {});
    return true;
  });
  if (events) await events;
  return recorded;
}
