// What a send ended in, as a closed set of kinds with the data its answer is built from. Send,
// draft send, approval, forward and RSVP return one; a client_id stores it (idempotency.ts) and a
// retry gets it back. Statuses and wording belong to the edges: src/request/send-answers.ts.

import type { DeliveryOutcome } from "../transport.ts";

export type SendOutcome =
  /** Delivered; `replayed` when a retry with the same client_id is given the stored send. */
  | { kind: "sent"; messageId: string; threadId: string; draftId: string | null; providerMessageId: string; replayed?: true }
  /** Held for a human as a pending draft: a success, not to be resent. */
  | { kind: "pending_approval"; draftId: string }
  /** Approved for a later send: the schedule sends it at its time. */
  | { kind: "scheduled"; draftId: string; scheduledAt: string }
  /** The recipient's server refused it for good. */
  | { kind: "refused"; error: string }
  /** It did not leave, for a reason that may pass: a retry with the same client_id sends again. */
  | { kind: "failed_temporarily"; error: string }
  /** The final dot went out and no reply was read: it may have arrived, and is never resent. */
  | { kind: "outcome_unknown"; error: string }
  /** The monthly quota was spent: final for the client_id. */
  | { kind: "quota_exhausted" };

export type OutcomeKind = SendOutcome["kind"];

export type DispatchResult = {
  messageId: string;
  threadId: string;
  draftId: string | null;
  /** The message's delivery_attempts for this attempt: only it may record its outcome. */
  attempt: number;
  outcome: DeliveryOutcome;
};

/** A delivery attempt's result as the send's outcome. */
export function sendOutcomeOf(result: DispatchResult): SendOutcome {
  const { outcome } = result;
  switch (outcome.kind) {
    case "sent":
      return {
        kind: "sent",
        messageId: result.messageId,
        threadId: result.threadId,
        draftId: result.draftId,
        providerMessageId: outcome.providerMessageId,
      };
    case "permanent":
      return { kind: "refused", error: outcome.error };
    case "transient":
      return { kind: "failed_temporarily", error: outcome.error };
    case "unknown":
      return { kind: "outcome_unknown", error: outcome.error };
  }
}

/**
 * Whether a client_id keeps this outcome for its retries: a delivery and a hold are answered
 * again as they were, and so are the final failures (refused, the quota, an unknown outcome that
 * must never be replayed as sent). A temporary failure frees the client_id for the retry to send.
 */
export function storedState(outcome: SendOutcome): "completed" | "failed_terminal" | null {
  switch (outcome.kind) {
    case "sent":
    case "pending_approval":
    case "scheduled":
      return "completed";
    case "refused":
    case "outcome_unknown":
    case "quota_exhausted":
      return "failed_terminal";
    case "failed_temporarily":
      return null;
  }
}

/** A stored outcome given again on a retry: a delivered send is marked replayed, the rest are as they were. */
export function replayOf(stored: SendOutcome): SendOutcome {
  return stored.kind === "sent" ? { ...stored, replayed: true } : stored;
}
