// POST /api/v1/send. Checks run in the order docs/api.md ("Sending") lists: body validation, mailbox and key
// binding (with the custom-domain entitlement), idempotency, send lists, suppression, approval,
// quota, delivery. A blocked or suppressed recipient never reaches the queue.

import type { Tx } from "../../db.ts";
import { sendStageDuration } from "../../metrics.ts";
import type { OutgoingFile } from "../attachment-bytes.ts";
import { isCoreError } from "../errors.ts";
import type { Principal } from "../principal.ts";
import type { Services } from "../services.ts";
import { composeAhead, dispatchMessage } from "./dispatch.ts";
import { createForcedDraft, holdReasonOf } from "./drafts.ts";
import { claimIdempotencyKey, finishIdempotencyKey, type IdempotencyClaim, payloadHash, releaseIdempotencyKey } from "./idempotency.ts";
import { loopGuardReason } from "./loop-guard.ts";
import type { SendOutcome } from "./outcome.ts";
import { assertSendingEntitled, type OutgoingRequest, type ResolvedOutgoing, resolveOutgoing } from "./outgoing.ts";
import { assertRecipientAllowed, readRecipientPolicy } from "./policy.ts";

export async function sendMessage(svc: Services, principal: Principal, body: OutgoingRequest): Promise<SendOutcome> {
  const checks = sendStageDuration.startTimer({ stage: "checks" });
  // The recipient's policy is read with the mailbox when the request names the recipient.
  const outgoing = await resolveOutgoing(svc.sql, principal, body, { withPolicy: true });
  return sendOutgoing(svc, principal, outgoing, { clientId: body.client_id ?? null, payload: body }, checks);
}

/**
 * What a send beside POST /send (a forward, an RSVP) adds: files, a reason to hold it for a human
 * whatever the mailbox says, and what the held draft must carry beyond its text.
 */
export type SendExtras = {
  clientId: string | null;
  /** hashed for the client_id's idempotency record */
  payload: Record<string, unknown>;
  attachments?: OutgoingFile[];
  calendar?: { method: string; content: string } | null;
  holdForHuman?: boolean;
  /** why holdForHuman holds it (drafts.held_reason, shown to the reviewer) */
  heldReason?: string;
  onHeld?(tx: Tx, draftId: string): Promise<void>;
};

/** The checks and delivery of POST /send after body validation, for any resolved outgoing message. */
export async function sendOutgoing(
  svc: Services,
  principal: Principal,
  outgoing: ResolvedOutgoing,
  extras: SendExtras,
  checks: () => void = sendStageDuration.startTimer({ stage: "checks" }),
): Promise<SendOutcome> {
  assertSendingEntitled(principal.plan, outgoing.mailbox);
  const clientId = extras.clientId;
  const to = outgoing.to!;
  const content = {
    mailbox: outgoing.mailbox,
    to,
    subject: outgoing.subject,
    text: outgoing.text,
    threadId: outgoing.threadId,
    inReplyTo: outgoing.reply?.inReplyTo ?? null,
    references: outgoing.reply?.references ?? [],
    draftId: null,
    attachments: extras.attachments,
    calendar: extras.calendar,
  };
  const pause = holdReasonOf(outgoing.mailbox) === "mailbox_paused" ? "mailbox_paused" : null;
  let composed: ReturnType<typeof composeAhead> | undefined;

  let claim: IdempotencyClaim | null = null;
  if (clientId) {
    const key = { accountId: principal.accountId, mailboxId: outgoing.mailbox.id, clientId };
    const result = await claimIdempotencyKey(svc.sql, key, await payloadHash(extras.payload));
    // The stored outcome, given again (a delivered send marked as replayed).
    if (!result.claimed) return result.replay;
    claim = result.claim;
  }

  try {
    // Read with the mailbox (resolveOutgoing's withPolicy) when it is this mailbox's and recipient's.
    const { policy } = outgoing;
    assertRecipientAllowed(
      policy?.mailboxId === outgoing.mailbox.id && policy.recipient === to
        ? policy
        : await readRecipientPolicy(svc.sql, principal, outgoing.mailbox.id, to),
    );
    checks();
    // Composed and signed while a reply's loop guard waits on the database, only once every check
    // that can refuse the send has passed: a replayed or refused request (a client polling its
    // client_id, a blocked recipient) costs no composing or RSA signature, and a forward's large
    // attachments are not encoded again for each retry. Not for a send the mailbox or the caller
    // already holds; the loop guard may still hold a reply, and its bytes are then dropped.
    // Nothing it does is visible before dispatchMessage records it.
    if (!pause && !outgoing.mailbox.require_approval && !extras.holdForHuman) composed = composeAhead(svc, content);

    // The loop guard (src/core/outbound/loop-guard.ts): a reply to automatic mail, or a thread where the
    // agent keeps answering it, waits for a human whatever the mailbox says.
    // A send that answers nothing starts a thread of its own (resolveOutgoing made its id): there is
    // nothing in it to count, so only a reply costs the guard's queries.
    const loopReason = outgoing.reply
      ? await loopGuardReason(svc.sql, principal, { messageId: outgoing.reply.messageId, threadId: outgoing.threadId })
      : null;
    // A pause first (the operator's stop: no reviewer email), then the loop guard, then the caller's reason.
    if (pause || outgoing.mailbox.require_approval || extras.holdForHuman || loopReason) {
      const heldReason = pause ?? loopReason ?? (extras.holdForHuman ? (extras.heldReason ?? "risky_forward") : null);
      return await svc.sql.begin(async (tx) => {
        const draft = await createForcedDraft(tx, principal, outgoing, clientId, heldReason);
        if (extras.onHeld) await extras.onHeld(tx, draft.id);
        const held: SendOutcome = { kind: "pending_approval", draftId: draft.id };
        if (claim) await finishIdempotencyKey(tx, claim, held);
        return held;
      });
    }

    return await dispatchMessage(svc, {
      accountId: principal.accountId,
      content,
      composed,
      // The claim is tied to the message when it is recorded; the outcome's transaction stores
      // the outcome for it (record-outcome.ts, recordOutcome).
      claim: claim ?? undefined,
    });
  } catch (error) {
    if (claim && isCoreError(error, "quota_exhausted")) {
      // The quota is final for this client_id: a retry is refused the same way.
      await finishIdempotencyKey(svc.sql, claim, { kind: "quota_exhausted" }).catch(() => {});
    } else if (claim) {
      // Policy refusals (send lists, suppression) and failures before delivery are evaluated again on retry.
      await releaseIdempotencyKey(svc.sql, claim).catch(() => {});
    }
    throw error;
  }
}
