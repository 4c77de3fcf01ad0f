// A delivery outcome as the answer to send and draft send. Unlike errors, which core throws as codes
// (../errors.ts) and the edge words, these answers are stored with the client_id (idempotency.ts)
// and given again byte for byte on a retry, so they are kept whole, status included.

import type { DispatchResult } from "./dispatch.ts";
import type { StoredResponse } from "./idempotency.ts";

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
