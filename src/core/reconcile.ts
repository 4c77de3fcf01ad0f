// Resolving an outbound message whose delivery outcome was not recorded (the reconcile_send task).
//  - 'retry' (a draft's transient failure, known not delivered): deliver again, up to
//    DELIVERY_RETRY_LIMIT attempts, then give the draft back to its author with the error.
//  - 'sending' or 'unknown' after the grace period: our transports cannot be asked whether the
//    receiving server kept the message, so it is recorded as sent and marked assumed; this never
//    risks a duplicate. The waiting idempotency claim and the draft follow.
import type { Tx } from "../db.ts";
import { recordOutcome, recordOutcomeEvents } from "./dispatch.ts";
import { completeByMessage } from "./idempotency.ts";
import { enqueueJob } from "./jobs.ts";
import { releaseSend } from "./quota.ts";
import type { Services } from "./services.ts";

export async function reconcileDelivery(svc: Services, messageId: string): Promise<void> {
  const { sql, log, config } = svc;
  const [message] = await sql`
    select id, account_id, mailbox_id, thread_id, draft_id, delivery_status, delivery_attempts, from_addr, to_addr, rfc_message_id, raw_outbound,
      extract(epoch from now() - created_at) * 1000 as age_ms
    from messages where id = ${messageId} and direction = 'out'`;
  if (!message || message.delivery_status === "sent") return;

  // 'sending' may still be a live attempt (the grace period can be shorter than a slow delivery):
  // only a row older than any attempt could last belongs to a process that died mid-delivery.
  const attemptLimitMs = config.deliveryTimeoutMs + 60_000;
  if (message.delivery_status === "sending" && Number(message.age_ms) < attemptLimitMs) {
    await enqueueJob(
      sql,
      "reconcile_send",
      { message_id: message.id },
      {
        jobKey: `reconcile:${message.id}`,
        runAt: new Date(Date.now() + attemptLimitMs - Number(message.age_ms)),
      },
    );
    return;
  }

  if (message.delivery_status === "retry") {
    if (message.delivery_attempts >= config.deliveryRetryLimit) {
      await sql.begin(async (tx) => {
        const deleted = await tx`
          delete from messages where id = ${message.id} and delivery_status = 'retry'
          returning created_at, mailbox_id, thread_id, draft_id, to_addr, subject`;
        if (deleted.length === 0) return;
        const error = "delivery kept failing temporarily; send again";
        await tx`update drafts set status = 'draft', last_error = ${error}, updated_at = now() where id = ${message.draft_id} and status = 'sending'`;
        await tx`delete from unsubscribe_tokens where message_id = ${message.id}`;
        await releaseSend(tx, message.account_id, deleted[0]!.created_at);
        await recordOutcomeEvents(tx, svc.transport.name, message.account_id, message.id, deleted[0] as never, { kind: "gave_up", error });
      });
      log.warn("reconcile.gave_up", { message_id: message.id, draft_id: message.draft_id, attempts: message.delivery_attempts });
      return;
    }
    const claimed = await sql`
      update messages set delivery_attempts = delivery_attempts + 1, delivery_status = 'sending'
      where id = ${message.id} and delivery_status = 'retry' returning id`;
    if (claimed.length === 0) return;
    const outcome = await svc.transport.deliver({ from: message.from_addr, to: message.to_addr }, message.raw_outbound, {
      messageId: String(message.rfc_message_id).replace(/^<|>$/g, ""),
    });
    const result = { messageId: message.id, threadId: message.thread_id, draftId: message.draft_id, outcome };
    await recordOutcome(svc, result, message.account_id, {
      keepForRetry: true,
      async onOutcome(tx) {
        if (outcome.kind === "sent") await markDraftSent(tx, message.draft_id, message.id);
        if (outcome.kind === "permanent") {
          await tx`update drafts set status = 'draft', last_error = ${outcome.error}, updated_at = now() where id = ${message.draft_id} and status = 'sending'`;
        }
      },
    });
    log.info("reconcile.redelivered", { message_id: message.id, outcome: outcome.kind });
    return;
  }

  // 'sending' or 'unknown': the outcome cannot be learned; record it as sent, marked assumed,
  // together with the idempotent response and the draft that were waiting on it.
  await sql.begin(async (tx) => {
    const updated = await tx`
      update messages set delivery_status = 'sent', outcome_assumed = true, provider_message_id = coalesce(provider_message_id, ${`assumed:${message.id}`}), raw_outbound = null
      where id = ${message.id} and delivery_status in ('sending', 'unknown')
      returning provider_message_id, created_at, mailbox_id, thread_id, draft_id, to_addr, subject`;
    if (updated.length === 0) return;
    await completeByMessage(tx, message.id, {
      status: 201,
      body: { id: message.id, thread_id: message.thread_id, provider_message_id: updated[0]!.provider_message_id },
    });
    await markDraftSent(tx, message.draft_id, message.id);
    await recordOutcomeEvents(tx, svc.transport.name, message.account_id, message.id, updated[0] as never, {
      kind: "assumed_sent",
      providerMessageId: updated[0]!.provider_message_id,
    });
  });
  log.info("reconcile.assumed_sent", { message_id: message.id, draft_id: message.draft_id });
}

async function markDraftSent(tx: Tx, draftId: string | null, messageId: string): Promise<void> {
  if (!draftId) return;
  await tx`update drafts set status = 'sent', sent_message_id = ${messageId}, updated_at = now() where id = ${draftId} and status = 'sending'`;
}
