// Every error the API can answer, with the exact strings of the API contract (docs/api.md), in one place.
// Core functions throw ApiError; the HTTP layer turns it into the status and JSON body.

export type ErrorBody = { error?: string; code?: string; [key: string]: unknown };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    /** Extra response headers (429's Retry-After and RateLimit fields). */
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.error === "string" ? body.error : String(body.code ?? status));
  }
}

export const messages = {
  missingBearer: "missing bearer token",
  invalidApiKey: "invalid api key",
  cannotSend: "this api key cannot send",
  cannotRead: "this api key cannot read messages",
  differentMailbox: "this api key is scoped to a different mailbox",
  singleMailbox: "this api key is scoped to a single mailbox",
  paidPlanRequired: "custom domains require a paid plan",
  quotaExhausted: "monthly send quota exhausted",
  idempotencyConflict: "client_id was already used with a different payload",
  idempotencyInProgress: "a send with this client_id is still in progress; retry shortly",
  approvalConflict: "draft is no longer editable, deletable or sendable",
  recipientSuppressed: "recipient is suppressed (bounce, complaint or unsubscribe)",
  draftWithoutRecipient: "draft has no recipient",
  routeNotFound: "not found",
  bodyTooLarge: "request body too large",
  malformedJson: "request body is not valid JSON",
  unsupportedMediaType: "request body must be sent as application/json",
  internal: "internal error",
} as const;

export type KeyScopeReason = "cannotSend" | "cannotRead" | "differentMailbox" | "singleMailbox";
export type NotFoundSubject =
  | "account"
  | "message"
  | "draft"
  | "mailbox"
  | "domain"
  | "extraction schema"
  | "attachment"
  | "delivery"
  | "thread"
  | "consumer";

const specificNotFound = new Set<NotFoundSubject>(["message", "draft", "account", "delivery", "thread"]);

export const errors = {
  missingBearer: () => new ApiError(401, { error: messages.missingBearer }),
  invalidApiKey: () => new ApiError(401, { error: messages.invalidApiKey }),
  scopeNotPermitted: (scope: string) => new ApiError(403, { error: `scope '${scope}' not permitted for this endpoint` }),
  keyScope: (reason: KeyScopeReason) => new ApiError(403, { error: messages[reason], code: "key_scope" }),
  paidPlanRequired: () => new ApiError(403, { error: messages.paidPlanRequired }),
  validation: (message: string) => new ApiError(400, { error: message }),
  // SPEC's 404 strings: `message not found`, `draft not found`, and `not found` for anything else
  // an API caller can name. Operator-only subjects (CLI) keep their name for a clearer message.
  notFound: (subject: NotFoundSubject) =>
    new ApiError(404, { error: specificNotFound.has(subject) ? `${subject} not found` : messages.routeNotFound }),
  routeNotFound: () => new ApiError(404, { error: messages.routeNotFound }),
  conflict: (message: string) => new ApiError(409, { error: message }),
  quotaExhausted: () => new ApiError(402, { error: messages.quotaExhausted }),
  idempotencyConflict: () => new ApiError(409, { code: "idempotency_conflict", error: messages.idempotencyConflict }),
  idempotencyInProgress: () => new ApiError(409, { code: "idempotency_in_progress", error: messages.idempotencyInProgress }),
  approvalConflict: () => new ApiError(409, { code: "approval_conflict", error: messages.approvalConflict }),
  sendBlocked: (reason: "block_match" | "no_allow_match", scope: "account" | "mailbox", listEntryId?: string) =>
    new ApiError(403, {
      code: "send_blocked_by_list",
      reason,
      scope,
      ...(reason === "block_match" && listEntryId ? { list_entry_id: listEntryId } : {}),
    }),
  recipientSuppressed: () => new ApiError(422, { error: messages.recipientSuppressed }),
  draftWithoutRecipient: () => new ApiError(422, { error: messages.draftWithoutRecipient }),
  permanentRejection: (detail: string) => new ApiError(400, { error: detail, retryable: false }),
  transientFailure: (detail: string) => new ApiError(502, { error: detail, retryable: true }),
  // Not retryable as such: a retry with the same client_id answers idempotency_in_progress until
  // reconciliation records the outcome, after which it returns the stored result.
  outcomeUnknown: (detail: string) => new ApiError(502, { error: detail, retryable: false, code: "delivery_outcome_unknown" }),
  bodyTooLarge: () => new ApiError(413, { error: messages.bodyTooLarge }),
  malformedJson: () => new ApiError(400, { error: messages.malformedJson }),
  unsupportedMediaType: () => new ApiError(415, { error: messages.unsupportedMediaType }),
  internal: () => new ApiError(500, { error: messages.internal }),
  contentStoreUnavailable: () =>
    new ApiError(503, { error: "the message content is in the object store, which cannot be read right now; try again later" }),
};
