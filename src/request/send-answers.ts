// The one table from a send's outcome (src/core/outbound/outcome.ts) to what a caller is answered:
// the HTTP status and the JSON body with the contract's exact strings (docs/api.md, "Sending").
// The send routes answer with it, MCP returns it as the tool result, the dashboard and the CLI
// read it; a client_id's replay is built here from the stored outcome, like the first answer.
import type { OutcomeKind, SendOutcome } from "../core/outbound/index.ts";

export type SendAnswer = { status: number; body: Record<string, unknown> };

type Row<K extends OutcomeKind> = (outcome: Extract<SendOutcome, { kind: K }>) => SendAnswer;

const table: { [K in OutcomeKind]: Row<K> } = {
  sent: (o) => ({
    status: o.replayed ? 200 : 201,
    body: o.draftId
      ? { id: o.messageId, draft_id: o.draftId, thread_id: o.threadId, provider_message_id: o.providerMessageId }
      : { id: o.messageId, thread_id: o.threadId, provider_message_id: o.providerMessageId },
  }),
  pending_approval: (o) => ({ status: 202, body: { draft_id: o.draftId, status: "pending_approval" } }),
  scheduled: (o) => ({ status: 202, body: { draft_id: o.draftId, status: "scheduled", scheduled_at: o.scheduledAt } }),
  refused: (o) => ({ status: 400, body: { error: `recipient server rejected the message: ${o.error}`, retryable: false } }),
  failed_temporarily: (o) => ({ status: 502, body: { error: `delivery failed temporarily: ${o.error}`, retryable: true } }),
  outcome_unknown: (o) => ({
    status: 502,
    body: {
      error: `delivery outcome unknown, the message may or may not have arrived: ${o.error}`,
      retryable: false,
      code: "delivery_outcome_unknown",
    },
  }),
  quota_exhausted: () => ({ status: 402, body: { error: "monthly send quota exhausted" } }),
};

/** What a send's outcome answers. */
export function answerOfOutcome(outcome: SendOutcome): SendAnswer {
  return (table[outcome.kind] as Row<OutcomeKind>)(outcome);
}
