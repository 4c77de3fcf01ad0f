// The send pipeline's last step, shared by POST /send, draft send and approval: record the
// outbound message, compose and sign it, hand it to the transport, record the outcome.
//
// Two transactions bracket the transport call, and everything that must agree commits together:
//  1. record: the caller's claim (a draft moved to sending, an idempotency key tied to the
//     message), the quota reservation, the message row and its reconcile job. Anything that
//     throws here (a bad header, a lost claim) rolls all of it back: nothing was sent.
//  2. outcome: the message's new state, the quota given back when nothing left, and the caller's
//     follow-up (the stored idempotent response, the draft's new status).
// A crash between the two leaves the message and its job: the reconcile task resolves it.
import { composeUnsigned, signMessage } from "../mail/compose.ts";
import type { DeliveryOutcome } from "./transport.ts";
import type { Tx } from "../db.ts";
import { signingKeyFor } from "./dkim.ts";
import { newId } from "./ids.ts";
import { enqueueJob } from "./jobs.ts";
import { sendStageDuration, sends } from "../metrics.ts";
import type { Mailbox } from "./mailboxes.ts";
import { releaseSend, reserveSend } from "./quota.ts";
import type { Services } from "./services.ts";
import { createUnsubscribeLinks } from "./unsubscribe.ts";

export type DispatchContent = {
  mailbox: Mailbox;
  to: string;
  subject: string;
  text: string;
  threadId: string;
  inReplyTo: string | null;
  references: string[];
  draftId: string | null;
};

export type DispatchResult = { messageId: string; threadId: string; draftId: string | null; outcome: DeliveryOutcome };

export type Dispatch = {
  accountId: string;
  /** Inside the record transaction: lock and claim what is being sent, and say what it is. */
  prepare(tx: Tx): Promise<DispatchContent>;
  /** Inside the record transaction, once the message id exists. */
  afterRecord?(tx: Tx, messageId: string): Promise<void>;
  /** Inside the outcome transaction. */
  onOutcome?(tx: Tx, result: DispatchResult): Promise<void>;
};

export async function dispatchMessage(svc: Services, input: Dispatch): Promise<DispatchResult> {
  const { sql, config } = svc;
  const messageId = newId("msg");

  const stage = (name: string) => sendStageDuration.startTimer({ stage: name });
  const recording = stage("record");
  const { content, raw, rfcMessageId } = await sql.begin(async (tx) => {
    const content = await input.prepare(tx);
    const rfcMessageId = `${messageId}@${content.mailbox.domain_name}`;
    const unsubscribe = await createUnsubscribeLinks(tx, config, { accountId: input.accountId, address: content.to, messageId });
    const dkim = await signingKeyFor(tx, config, content.mailbox);
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
      unsubscribe,
    });
    composing();
    const signing = stage("sign");
    const raw = await signMessage(unsigned, dkim);
    signing();
    // The quota is the last check before delivery (DESIGN's order), and commits with the message.
    // It comes after composing and signing: its upsert locks the account's usage row until
    // COMMIT, and every concurrent send of the account waits on that lock (bench send), so
    // nothing that can run outside the lock does. Composing fails only on a broken invariant.
    await reserveSend(tx, config, input.accountId);
    await tx`
      insert into messages (id, account_id, mailbox_id, direction, rfc_message_id, thread_id, in_reply_to, "references",
        from_addr, to_addr, subject, body_raw, body_clean, truncated, delivery_status, delivery_attempts, draft_id, raw_outbound, search)
      values (${messageId}, ${input.accountId}, ${content.mailbox.id}, 'out', ${`<${rfcMessageId}>`}, ${content.threadId},
        ${content.inReplyTo}, ${content.references}::text[], ${content.mailbox.address}, ${content.to}, ${content.subject},
        ${content.text}, ${content.text}, false, 'sending', 1, ${content.draftId}, ${raw},
        message_search_document(${content.subject}, ${content.mailbox.address}, ${content.text}, null))`;
    // Runs after the grace period whatever happens; removed once the outcome is recorded.
    await enqueueJob(
      tx,
      "reconcile_send",
      { message_id: messageId },
      {
        jobKey: `reconcile:${messageId}`,
        runAt: new Date(Date.now() + config.reconcileGraceSeconds * 1000),
      },
    );
    if (input.afterRecord) await input.afterRecord(tx, messageId);
    return { content, raw, rfcMessageId };
  });
  recording();

  const delivering = stage("deliver");
  const outcome = await svc.transport.deliver({ from: content.mailbox.address, to: content.to }, raw, { messageId: rfcMessageId });
  delivering();
  const result: DispatchResult = { messageId, threadId: content.threadId, draftId: content.draftId, outcome };
  const outcomeRecording = stage("outcome");
  await recordOutcome(svc, result, input.accountId, { keepForRetry: content.draftId !== null, onOutcome: input.onOutcome });
  outcomeRecording();
  sends.inc({ outcome: outcome.kind });
  svc.log.info("outbound.delivery", {
    message_id: messageId,
    transport: svc.transport.name,
    outcome: outcome.kind,
    draft_id: content.draftId,
  });
  return result;
}

/**
 * sent → the message is visible as sent. permanent or transient → it never left: the row goes
 * (a draft's transient failure keeps it for the reconcile task to retry) and the quota is given
 * back. unknown → it stays for reconciliation. The caller's follow-up commits in the same
 * transaction.
 */
export async function recordOutcome(
  svc: Services,
  result: DispatchResult,
  accountId: string,
  options: { keepForRetry: boolean; onOutcome?: (tx: Tx, result: DispatchResult) => Promise<void> },
): Promise<void> {
  const { config } = svc;
  const { messageId, outcome } = result;
  const reconcileJob = `reconcile:${messageId}`;
  await svc.sql.begin(async (tx) => {
    // Only an attempt still recorded as in flight may write its outcome: if reconciliation has
    // already decided (an attempt that outlived the grace period), its decision stands.
    let applied: { created_at: string }[];
    if (outcome.kind === "sent") {
      applied = await tx`
        update messages set delivery_status = 'sent', provider_message_id = ${outcome.providerMessageId}, delivery_error = null, raw_outbound = null
        where id = ${messageId} and delivery_status = 'sending' returning created_at`;
      if (applied.length > 0) await tx`select graphile_worker.remove_job(${reconcileJob})`;
    } else if (outcome.kind === "unknown") {
      applied = await tx`
        update messages set delivery_status = 'unknown', delivery_error = ${outcome.error}
        where id = ${messageId} and delivery_status = 'sending' returning created_at`;
      // A job must follow: when this runs inside the reconcile task, its own job is about to end.
      if (applied.length > 0) {
        await enqueueJob(
          tx,
          "reconcile_send",
          { message_id: messageId },
          { jobKey: reconcileJob, runAt: new Date(Date.now() + config.reconcileGraceSeconds * 1000) },
        );
      }
    } else if (outcome.kind === "transient" && options.keepForRetry) {
      applied = await tx`
        update messages set delivery_status = 'retry', delivery_error = ${outcome.error}
        where id = ${messageId} and delivery_status = 'sending' returning created_at`;
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
      applied = await tx`delete from messages where id = ${messageId} and delivery_status = 'sending' returning created_at`;
      if (applied.length > 0) {
        await tx`select graphile_worker.remove_job(${reconcileJob})`;
        await tx`delete from unsubscribe_tokens where message_id = ${messageId}`;
        await releaseSend(tx, accountId, applied[0]!.created_at);
      }
    }
    if (applied.length === 0) {
      svc.log.warn("outbound.outcome_after_reconciliation", { message_id: messageId, outcome: outcome.kind });
      return;
    }
    if (options.onOutcome) await options.onOutcome(tx, result);
  });
}
