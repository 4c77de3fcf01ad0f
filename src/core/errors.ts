// The closed set of errors core functions throw: a code, and the values its answer needs. What a
// code answers (HTTP status and the contract's exact strings, docs/api.md) is decided at the edge,
// in src/request/error-answers.ts, one table read alike by the HTTP API, MCP, the dashboard and
// the CLI. Core branches on codes, never on statuses.

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

/** Each code with the values its answer is made of. */
export type ErrorParams = {
  missing_bearer: Record<string, never>;
  invalid_api_key: Record<string, never>;
  scope_not_permitted: { scope: string };
  key_scope: { reason: KeyScopeReason };
  paid_plan_required: Record<string, never>;
  /** A request the contract refuses, with the sentence saying why. */
  validation: { message: string };
  not_found: { subject: NotFoundSubject };
  route_not_found: Record<string, never>;
  /** A state conflict, with the sentence saying which. */
  conflict: { message: string };
  quota_exhausted: Record<string, never>;
  idempotency_conflict: Record<string, never>;
  idempotency_in_progress: Record<string, never>;
  approval_conflict: Record<string, never>;
  send_blocked: { reason: "block_match" | "no_allow_match"; scope: "account" | "mailbox"; listEntryId?: string };
  recipient_suppressed: Record<string, never>;
  draft_without_recipient: Record<string, never>;
  body_too_large: Record<string, never>;
  malformed_json: Record<string, never>;
  unsupported_media_type: Record<string, never>;
  multipart_required: Record<string, never>;
  internal: Record<string, never>;
  content_store_unavailable: Record<string, never>;
  attachments_too_large: { limit: number };
  too_many_attachments: { limit: number };
  attachment_infected: { signature: string };
  attachment_from_malware: Record<string, never>;
  virus_scanner_unavailable: Record<string, never>;
  rate_limited: { retryAfter: number; fields: Record<string, string> };
  too_many_streams: { perKey: number; retryAfter: number };
  /** A key whose event socket was closed for flooding, opening another too soon. */
  socket_cooldown: { retryAfter: number };
};
export type ErrorCode = keyof ErrorParams;

export class CoreError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly code: C,
    readonly params: ErrorParams[C],
  ) {
    super(code);
  }
}

export function isCoreError<C extends ErrorCode>(error: unknown, ...codes: C[]): error is CoreError<C> {
  return error instanceof CoreError && (codes.length === 0 || (codes as string[]).includes(error.code));
}

/** Failures of the service or what it depends on, not refusals of the request: a caller retries. */
const ourFailures = new Set<ErrorCode>(["internal", "content_store_unavailable", "virus_scanner_unavailable"]);

export function isOurFailure(error: CoreError): boolean {
  return ourFailures.has(error.code);
}

const none = {} as Record<string, never>;

export const errors = {
  missingBearer: () => new CoreError("missing_bearer", none),
  invalidApiKey: () => new CoreError("invalid_api_key", none),
  scopeNotPermitted: (scope: string) => new CoreError("scope_not_permitted", { scope }),
  keyScope: (reason: KeyScopeReason) => new CoreError("key_scope", { reason }),
  paidPlanRequired: () => new CoreError("paid_plan_required", none),
  validation: (message: string) => new CoreError("validation", { message }),
  notFound: (subject: NotFoundSubject) => new CoreError("not_found", { subject }),
  routeNotFound: () => new CoreError("route_not_found", none),
  conflict: (message: string) => new CoreError("conflict", { message }),
  quotaExhausted: () => new CoreError("quota_exhausted", none),
  idempotencyConflict: () => new CoreError("idempotency_conflict", none),
  idempotencyInProgress: () => new CoreError("idempotency_in_progress", none),
  approvalConflict: () => new CoreError("approval_conflict", none),
  sendBlocked: (reason: "block_match" | "no_allow_match", scope: "account" | "mailbox", listEntryId?: string) =>
    new CoreError("send_blocked", { reason, scope, listEntryId }),
  recipientSuppressed: () => new CoreError("recipient_suppressed", none),
  draftWithoutRecipient: () => new CoreError("draft_without_recipient", none),
  bodyTooLarge: () => new CoreError("body_too_large", none),
  malformedJson: () => new CoreError("malformed_json", none),
  unsupportedMediaType: () => new CoreError("unsupported_media_type", none),
  multipartRequired: () => new CoreError("multipart_required", none),
  internal: () => new CoreError("internal", none),
  contentStoreUnavailable: () => new CoreError("content_store_unavailable", none),
  attachmentsTooLarge: (limit: number) => new CoreError("attachments_too_large", { limit }),
  tooManyAttachments: (limit: number) => new CoreError("too_many_attachments", { limit }),
  attachmentInfected: (signature: string) => new CoreError("attachment_infected", { signature }),
  attachmentFromMalware: () => new CoreError("attachment_from_malware", none),
  virusScannerUnavailable: () => new CoreError("virus_scanner_unavailable", none),
  rateLimited: (retryAfter: number, fields: Record<string, string>) => new CoreError("rate_limited", { retryAfter, fields }),
  tooManyStreams: (perKey: number, retryAfter: number) => new CoreError("too_many_streams", { perKey, retryAfter }),
  socketCooldown: (retryAfter: number) => new CoreError("socket_cooldown", { retryAfter }),
};
