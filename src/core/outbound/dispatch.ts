// The send pipeline's last step, shared by POST /send, draft send and approval: compose and sign
// the outbound message, record it, hand it to the transport, record the outcome.
//
// Two writes bracket the transport call, and everything that must agree commits together:
//  1. record: the caller's claim (a draft moved to sending, a client_id's idempotency key tied to
//     the message), the quota reservation, the message row and its reconcile job. Anything that
//     throws here (a bad header, a lost claim, the quota) rolls all of it back: nothing was sent.
//  2. outcome (record-outcome.ts): the message's new state, the quota given back when nothing left,
//     and the outcome for whatever waits on the message: the client_id it is tied to stores it,
//     its draft moves on. Both are found from the message, so every path records them alike.
// A crash between the two leaves the message and its job: the reconcile task resolves it.
// dispatchMessage returns the send's outcome (outcome.ts); the caller has nothing left to record.
//
// What is sent is known before any write for POST /send: it is composed and signed first (begun
// by the caller once its checks have passed, while a reply's loop guard reads: composeAhead), and a send without a claim
// records itself in one statement (outbound-record.ts) with no transaction around it. A draft is
// known only once its row is locked (draft-claim.ts), so it is composed inside that transaction.

import type { Db, Tx } from "../../db.ts";
import { composeUnsigned, signMessage } from "../../mail/compose.ts";
import { sendStageDuration, sends } from "../../metrics.ts";
import { storeMessageAttachments } from "../attachment-bytes.ts";
import { signingKeyFor } from "../domains/index.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Services } from "../services.ts";
import { claimDraft, type DraftClaim } from "./draft-claim.ts";
import { attachMessage, type IdempotencyClaim } from "./idempotency.ts";
import { insertOutboundRecord } from "./outbound-record.ts";
import { type DispatchResult, type SendOutcome, sendOutcomeOf } from "./outcome.ts";
import type { DispatchContent } from "./outgoing.ts";
import { recordOutcome } from "./record-outcome.ts";
import { newUnsubscribeLinks } from "./unsubscribe.ts";

export type { DispatchResult } from "./outcome.ts";
export type { DispatchContent } from "./outgoing.ts";

export type Dispatch = {
  accountId: string;
} & (
  | {
      /** What is sent, known before any write (POST /send): composed and signed before recording. */
      content: DispatchContent;
      /**
       * POST /send's client_id claim: tied to the message in the record transaction; the outcome
       * transaction stores the outcome for it (record-outcome.ts).
       */
      claim?: IdempotencyClaim;
      /** `content` composed and signed already, by composeAhead. */
      composed?: Promise<Composed>;
      draft?: undefined;
    }
  | {
      /** A draft, claimed inside the record transaction (draft-claim.ts): what it holds then is sent. */
      draft: DraftClaim;
      content?: undefined;
      claim?: undefined;
      composed?: undefined;
    }
);

export type Composed = { messageId: string; content: DispatchContent; raw: Uint8Array; rfcMessageId: string; unsubscribeTokenId: string };

const stage = (name: string) => sendStageDuration.startTimer({ stage: name });

/**
 * Composes and signs `content` before its send is decided (the checks that can refuse it have
 * passed; a reply's loop guard may still hold it), so that the work runs while the loop guard
 * waits on the database; handed to dispatchMessage as `composed`. It writes
 * nothing (an unsubscribe token is stored with the record), so a send refused or held after it
 * only drops the bytes. Its failure surfaces where dispatchMessage awaits it, after the checks,
 * as it did when composing came after them.
 */
export function composeAhead(svc: Services, content: DispatchContent): Promise<Composed> {
  const composed = compose(svc, svc.sql, newId("msg"), content);
  composed.catch(() => {});
  return composed;
}

export async function dispatchMessage(svc: Services, input: Dispatch): Promise<SendOutcome> {
  const { sql, config } = svc;
  const known = input.content ? await (input.composed ?? compose(svc, sql, newId("msg"), input.content)) : null;
  const messageId = known?.messageId ?? newId("msg");

  const record = async (db: Db): Promise<Composed> => {
    const composed = known ?? (await compose(svc, db, messageId, await claimDraft(db as Tx, input.draft!, messageId)));
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
    return composed;
  };
  const recording = stage("record");
  // One statement commits by itself; a claim or a draft must commit with it.
  const oneStatement = !input.draft && !input.claim && !input.content?.attachments?.length;
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
  const applied = await recordOutcome(svc, result, input, { keepForRetry: content.draftId !== null });
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
  return sendOutcomeOf(result);
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
  return { messageId, content, raw, rfcMessageId, unsubscribeTokenId: tokenId };
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
