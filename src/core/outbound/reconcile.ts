// Resolving an outbound message whose delivery outcome was not recorded (the reconcile_send task).
// What it may do depends on how far the attempt got (messages.final_dot_at, sql/0028):
//  - 'sending' with no final-dot mark, RECONCILE_GRACE_S after the attempt started: the receiver
//    certainly did not accept it (no final dot was ever allowed out). The task takes the message
//    over (delivery_attempts + 1, so a stalled attempt that is still alive can no longer write its
//    mark, hence never its dot) and delivers it again, same bytes, same Message-ID.
//  - 'sending' with the mark and no reply recorded, once the reply could no longer come
//    (DELIVERY_TIMEOUT_MS after the mark): the true ambiguity. Recorded as 'unknown', never as
//    sent: the waiting client_id gets 502 delivery_outcome_unknown, a draft goes back to `draft`.
//  - 'retry' (a draft's transient failure, known not delivered): deliver again, up to
//    DELIVERY_RETRY_LIMIT attempts, then give the draft back to its author with the error.
//  - 'unknown' (a draft left in 'sending' after a 502 delivery_outcome_unknown): give it back.
// Every outcome goes through recordOutcome (record-outcome.ts), the one place outcomes are written: it
// also stores the outcome for a client_id waiting on the message and moves the message's draft.
import { enqueueJob } from "../jobs.ts";
import type { Services } from "../services.ts";
import type { DeliveryOutcome } from "../transport.ts";
import { markFinalDot } from "./dispatch.ts";
import { finishByMessage } from "./idempotency.ts";
import { type DispatchResult, sendOutcomeOf } from "./outcome.ts";
import { releaseSend } from "./quota.ts";
import { giveDraftBack, type OutcomeRow, recordOutcome, recordOutcomeEvents } from "./record-outcome.ts";

/** What a draft says when its delivery outcome stays unknown. */
const UNKNOWN_DRAFT_ERROR =
  "delivery outcome unknown: the message went out to its end but no reply was read, so it may have arrived; check before sending it again";

// After the final dot, the reply can take at most the transport's inactivity timeout; this margin
// covers writing the dot itself and the outcome's commit.
const REPLY_MARGIN_MS = 5_000;

export async function reconcileDelivery(svc: Services, messageId: string): Promise<void> {
  const { sql, log, config } = svc;
  const [message] = await sql<
    (MessageRow & Record<string, unknown> & { delivery_status: string; delivery_attempts: number; marked: boolean })[]
  >`
    select id, account_id, mailbox_id, thread_id, draft_id, delivery_status, delivery_attempts, from_addr, to_addr, rfc_message_id,
      raw_outbound is not null as has_raw, final_dot_at is not null as marked,
      extract(epoch from now() - coalesce(delivery_started_at, created_at)) * 1000 as attempt_age_ms,
      extract(epoch from now() - final_dot_at) * 1000 as mark_age_ms
    from messages where id = ${messageId} and direction = 'out'`;
  if (!message || message.delivery_status === "sent") return;
  const later = (inMs: number) =>
    enqueueJob(
      sql,
      "reconcile_send",
      { message_id: message.id },
      { jobKey: `reconcile:${message.id}`, runAt: new Date(Date.now() + inMs) },
    );

  if (message.delivery_status === "unknown") {
    await sql.begin(async (tx) => {
      await giveDraftBack(tx, message.draft_id, UNKNOWN_DRAFT_ERROR);
      // A claim left waiting by an older version of the service gets its answer.
      await finishByMessage(tx, message.id, sendOutcomeOf(resultOf(message, message.delivery_attempts, unknown())));
    });
    return;
  }

  if (message.delivery_status === "sending") {
    if (message.marked) {
      const waitMs = config.deliveryTimeoutMs + REPLY_MARGIN_MS - Number(message.mark_age_ms);
      if (waitMs > 0) return void (await later(waitMs));
      // The attempt wrote its final dot (or was about to) and its reply was never recorded.
      const result = resultOf(message, message.delivery_attempts, unknown());
      const applied = await recordOutcome(svc, result, { accountId: message.account_id }, { keepForRetry: false });
      if (!applied) return;
      // The outcome is final now: the draft goes back at once. Should this process stop first, the
      // job recordOutcome left for the draft gives it back (the 'unknown' branch above).
      await giveDraftBack(svc.sql, message.draft_id, UNKNOWN_DRAFT_ERROR);
      log.warn("reconcile.outcome_unknown", { message_id: message.id, draft_id: message.draft_id });
      return;
    }
    const waitMs = config.reconcileGraceSeconds * 1000 - Number(message.attempt_age_ms);
    if (waitMs > 0) return void (await later(waitMs));
    // No final dot was allowed out: take the message over; a live attempt's mark now fails.
    const taken = await sql`
      update messages set delivery_attempts = delivery_attempts + 1, delivery_started_at = now()
      where id = ${message.id} and delivery_status = 'sending' and final_dot_at is null and delivery_attempts = ${message.delivery_attempts}
      returning delivery_attempts`;
    if (taken.length === 0) return void (await later(0)); // the attempt marked or finished meanwhile: look again
    log.warn("reconcile.taken_over", { message_id: message.id, draft_id: message.draft_id, attempt: taken[0]!.delivery_attempts });
    await redeliver(svc, message, taken[0]!.delivery_attempts);
    return;
  }

  if (message.delivery_status === "retry") {
    if (message.delivery_attempts >= config.deliveryRetryLimit) {
      await sql.begin(async (tx) => {
        const deleted = await tx<OutcomeRow[]>`
          delete from messages where id = ${message.id} and delivery_status = 'retry'
          returning created_at, mailbox_id, thread_id, draft_id, to_addr, subject`;
        if (deleted.length === 0) return;
        const error = "delivery kept failing temporarily; send again";
        await giveDraftBack(tx, message.draft_id, error);
        await tx`delete from unsubscribe_tokens where message_id = ${message.id}`;
        await releaseSend(tx, { accountId: message.account_id }, deleted[0]!.created_at);
        await recordOutcomeEvents(tx, svc.transport.name, { accountId: message.account_id }, message.id, deleted[0]!, {
          kind: "gave_up",
          error,
        });
      });
      log.warn("reconcile.gave_up", { message_id: message.id, draft_id: message.draft_id, attempts: message.delivery_attempts });
      return;
    }
    const claimed = await sql`
      update messages set delivery_attempts = delivery_attempts + 1, delivery_status = 'sending', delivery_started_at = now(), final_dot_at = null
      where id = ${message.id} and delivery_status = 'retry' returning delivery_attempts`;
    if (claimed.length === 0) return;
    await redeliver(svc, message, claimed[0]!.delivery_attempts);
  }
}

type MessageRow = {
  id: string;
  account_id: string;
  thread_id: string;
  draft_id: string | null;
  from_addr: string;
  to_addr: string;
  rfc_message_id: string;
};

/** One more attempt of the stored bytes, with its own final-dot mark and outcome. */
async function redeliver(svc: Services, message: MessageRow, attempt: number): Promise<void> {
  const [row] = await svc.sql`select raw_outbound from messages where id = ${message.id}`;
  if (!row?.raw_outbound) return;
  const outcome = await svc.transport.deliver({ from: message.from_addr, to: message.to_addr }, row.raw_outbound, {
    messageId: String(message.rfc_message_id).replace(/^<|>$/g, ""),
    beforeFinalDot: () => markFinalDot(svc.sql, message.id, attempt),
  });
  // A draft's transient failure is retried by the service; a send's goes back to its client.
  await recordOutcome(
    svc,
    resultOf(message, attempt, outcome),
    { accountId: message.account_id },
    { keepForRetry: message.draft_id !== null },
  );
  svc.log.info("reconcile.redelivered", { message_id: message.id, attempt, outcome: outcome.kind });
}

function resultOf(message: MessageRow, attempt: number, outcome: DeliveryOutcome): DispatchResult {
  return { messageId: message.id, threadId: message.thread_id, draftId: message.draft_id, attempt, outcome };
}

function unknown(): DeliveryOutcome {
  return {
    kind: "unknown",
    error: "the delivering process stopped after the final dot, before the reply was recorded; it is not sent again",
    stage: "final",
  };
}
