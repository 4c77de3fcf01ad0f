// A delivery outcome as the answer to send and draft send. Unlike errors, which core throws as codes
// (../errors.ts) and the edge words, these answers are stored with the client_id (idempotency.ts)
// and given again byte for byte on a retry, so they are kept whole, status included.

import type { Tx } from "../../db.ts";
import type { DeliveryOutcome } from "../transport.ts";
import { finishIdempotencyKey, type IdempotencyClaim, releaseIdempotencyKey, type StoredResponse } from "./idempotency.ts";

export type DispatchResult = {
  messageId: string;
  threadId: string;
  draftId: string | null;
  /** The message's delivery_attempts for this attempt: only it may record its outcome. */
  attempt: number;
  outcome: DeliveryOutcome;
};

/** The quota refusal, stored for the client_id: a retry is answered the same 402. */
export const QUOTA_EXHAUSTED_ANSWER: StoredResponse = { status: 402, body: { error: "monthly send quota exhausted" } };

export function outcomeResponse(result: DispatchResult): StoredResponse {
  const { outcome, draftId } = result;
  switch (outcome.kind) {
    case "sent":
      return {
        status: 201,
        body: draftId
          ? { id: result.messageId, draft_id: draftId, thread_id: result.threadId, provider_message_id: outcome.providerMessageId }
          : { id: result.messageId, thread_id: result.threadId, provider_message_id: outcome.providerMessageId },
      };
    case "permanent":
      return { status: 400, body: { error: `recipient server rejected the message: ${outcome.error}`, retryable: false } };
    case "transient":
      return { status: 502, body: { error: `delivery failed temporarily: ${outcome.error}`, retryable: true } };
    case "unknown":
      return {
        status: 502,
        body: {
          error: `delivery outcome unknown, the message may or may not have arrived: ${outcome.error}`,
          retryable: false,
          code: "delivery_outcome_unknown",
        },
      };
  }
}

/**
 * The outcome as the client_id's stored answer, committed with the outcome itself: a sent message
 * and a final failure (refused, or an unknown outcome, never replayed as sent) are answered again
 * on a retry; after a transient failure the client_id is freed for the retry to send.
 */
export async function storeOutcome(tx: Tx, claim: IdempotencyClaim, result: DispatchResult): Promise<void> {
  const kind = result.outcome.kind;
  if (kind === "sent") await finishIdempotencyKey(tx, claim, "completed", outcomeResponse(result));
  if (kind === "permanent" || kind === "unknown") await finishIdempotencyKey(tx, claim, "failed_terminal", outcomeResponse(result));
  if (kind === "transient") await releaseIdempotencyKey(tx, claim);
}
