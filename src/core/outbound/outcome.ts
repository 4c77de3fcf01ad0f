// Maps a delivery outcome onto the contract's response for send and draft send.

import { errors } from "../errors.ts";
import type { DispatchResult } from "./dispatch.ts";
import type { StoredResponse } from "./idempotency.ts";

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
      return { status: 400, body: errors.permanentRejection(`recipient server rejected the message: ${outcome.error}`).body };
    case "transient":
      return { status: 502, body: errors.transientFailure(`delivery failed temporarily: ${outcome.error}`).body };
    case "unknown":
      return {
        status: 502,
        body: errors.outcomeUnknown(`delivery outcome unknown, the message may or may not have arrived: ${outcome.error}`).body,
      };
  }
}
