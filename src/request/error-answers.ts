// The one table from core's error codes to what a caller is answered: the HTTP status, the JSON body
// with the contract's exact strings (docs/api.md), and any headers. The HTTP API answers with it,
// MCP returns it as the tool result {status, ...body}, the dashboard and the CLI show its `error`.
import { CoreError, type ErrorCode, type ErrorParams, errors, type KeyScopeReason, type NotFoundSubject } from "../core/errors.ts";
import { RATE_LIMITED } from "./rate-limit-fields.ts";
import { answerOfOutcome } from "./send-answers.ts";

export type ErrorBody = { error?: string; code?: string; [key: string]: unknown };
export type ErrorAnswer = { status: number; body: ErrorBody; headers: Record<string, string> };

const keyScopeText: Record<KeyScopeReason, string> = {
  cannotSend: "this api key cannot send",
  cannotRead: "this api key cannot read messages",
  differentMailbox: "this api key is scoped to a different mailbox",
  singleMailbox: "this api key is scoped to a single mailbox",
};

// The contract names three subjects in its 404s (`message not found`...) and says `not found` for
// anything else an API caller can name; operator-only subjects (CLI) keep their name.
const namedNotFound = new Set<NotFoundSubject>(["message", "draft", "account", "delivery", "thread"]);

type Row<C extends ErrorCode> = (params: ErrorParams[C]) => [status: number, body: ErrorBody, headers?: Record<string, string>];

const table: { [C in ErrorCode]: Row<C> } = {
  missing_bearer: () => [401, { error: "missing bearer token" }],
  invalid_api_key: () => [401, { error: "invalid api key" }],
  scope_not_permitted: ({ scope }) => [403, { error: `scope '${scope}' not permitted for this endpoint` }],
  key_scope: ({ reason }) => [403, { error: keyScopeText[reason], code: "key_scope" }],
  paid_plan_required: () => [403, { error: "custom domains require a paid plan" }],
  validation: ({ message }) => [400, { error: message }],
  not_found: ({ subject }) => [404, { error: namedNotFound.has(subject) ? `${subject} not found` : "not found" }],
  route_not_found: () => [404, { error: "not found" }],
  conflict: ({ message }) => [409, { error: message }],
  // The same refusal as a client_id's stored quota outcome gets on a retry.
  quota_exhausted: () => {
    const { status, body } = answerOfOutcome({ kind: "quota_exhausted" });
    return [status, body];
  },
  idempotency_conflict: () => [409, { code: "idempotency_conflict", error: "client_id was already used with a different payload" }],
  idempotency_in_progress: () => [
    409,
    { code: "idempotency_in_progress", error: "a send with this client_id is still in progress; retry shortly" },
  ],
  approval_conflict: () => [409, { code: "approval_conflict", error: "draft is no longer editable, deletable or sendable" }],
  send_blocked: ({ reason, scope, listEntryId }) => [
    403,
    { code: "send_blocked_by_list", reason, scope, ...(reason === "block_match" && listEntryId ? { list_entry_id: listEntryId } : {}) },
  ],
  recipient_suppressed: () => [422, { error: "recipient is suppressed (bounce, complaint or unsubscribe)" }],
  draft_without_recipient: () => [422, { error: "draft has no recipient" }],
  body_too_large: () => [413, { error: "request body too large" }],
  malformed_json: () => [400, { error: "request body is not valid JSON" }],
  unsupported_media_type: () => [415, { error: "request body must be sent as application/json" }],
  multipart_required: () => [415, { error: "send the file as multipart/form-data with a field named `file`" }],
  internal: () => [500, { error: "internal error" }],
  content_store_unavailable: () => [
    503,
    { error: "the message content is in the object store, which cannot be read right now; try again later" },
  ],
  attachments_too_large: ({ limit }) => [413, { error: `attachments may add up to at most ${limit} bytes per draft` }],
  too_many_attachments: ({ limit }) => [400, { error: `a draft may carry at most ${limit} attachments` }],
  attachment_infected: ({ signature }) => [
    422,
    { error: `attachment refused: the virus scanner found ${signature}`, code: "attachment_infected" },
  ],
  attachment_from_malware: () => [
    422,
    { error: "attachments of a message screened as malware cannot be attached", code: "attachment_infected" },
  ],
  virus_scanner_unavailable: () => [
    503,
    { error: "the virus scanner did not answer; the attachment was not added, try again", retryable: true },
  ],
  rate_limited: ({ fields }) => [429, { error: RATE_LIMITED }, fields],
  too_many_streams: ({ perKey, retryAfter }) => [
    429,
    { error: `too many open event streams for this api key (at most ${perKey})` },
    { "retry-after": String(retryAfter) },
  ],
  socket_cooldown: ({ retryAfter }) => [
    429,
    { error: "an event socket of this api key was closed for sending too many frames: reconnect after Retry-After" },
    { "retry-after": String(retryAfter) },
  ],
};

/** What a core error answers. */
export function answerOf(error: CoreError): ErrorAnswer {
  const [status, body, headers = {}] = (table[error.code] as Row<ErrorCode>)(error.params);
  return { status, body, headers };
}

/** Any error as an answer: ours as the table says, anything else as the plain 500. */
export function answerOfAny(error: unknown): ErrorAnswer {
  return answerOf(error instanceof CoreError ? error : errors.internal());
}

/** The sentence a person reads (dashboard, CLI): the answer's `error`, else its code. */
export function errorText(error: CoreError): string {
  const { status, body } = answerOf(error);
  return typeof body.error === "string" ? body.error : String(body.code ?? status);
}

/** The HTTP status a core error answers, for surfaces that choose a page by it (the dashboard). */
export function statusOf(error: CoreError): number {
  return answerOf(error).status;
}
