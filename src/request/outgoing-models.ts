// TypeBox models shared by send and draft routes.
import { t } from "elysia";
import { authErrors, ConflictError, ErrorBody, strictObject } from "./models.ts";

export const OutgoingFields = {
  mailbox_id: t.String({ minLength: 1 }),
  text: t.String({ minLength: 1, maxLength: 500_000, description: "plain-text body" }),
  to: t.Optional(
    t.String({ minLength: 1, maxLength: 998, description: "exactly one address; required unless reply_to_message_id is supplied" }),
  ),
  subject: t.Optional(t.String({ maxLength: 998 })),
  reply_to_message_id: t.Optional(t.String({ minLength: 1 })),
};

/** `client_id` on send and draft create (core refuses the reserved `draft:` prefix); the description says what it does there. */
export const clientId = (description: string) => t.Optional(t.String({ minLength: 1, maxLength: 256, description }));

export const PendingApproval = strictObject({ draft_id: t.String(), status: t.Literal("pending_approval") });
export const PermanentRejection = strictObject({ error: t.String(), retryable: t.Literal(false) }, "permanent provider rejection");
export const DeliveryFailure = strictObject(
  { error: t.String(), retryable: t.Boolean(), code: t.Optional(t.Literal("delivery_outcome_unknown")) },
  "transient failure (retryable true) or ambiguous outcome (code delivery_outcome_unknown)",
);
export const SendBlocked = strictObject(
  {
    code: t.Literal("send_blocked_by_list"),
    reason: t.Union([t.Literal("block_match"), t.Literal("no_allow_match")]),
    scope: t.Union([t.Literal("account"), t.Literal("mailbox")]),
    list_entry_id: t.Optional(t.String()),
  },
  "the recipient is refused by a send list",
);

/** What a completed send answers: POST /send, and the routes that send through its pipeline (forward, RSVP). */
export const Sent = strictObject({ id: t.String(), thread_id: t.String(), provider_message_id: t.String() });

/** The answers of a route that sends through send's pipeline, checks and idempotency; `what` names it in the 200's description. */
export const sendAnswers = (what: string) => ({
  200: t.Object(Sent.properties, { description: `the stored result of an earlier completed ${what} with this client_id and payload` }),
  201: Sent,
  202: PendingApproval,
  400: t.Union([PermanentRejection, ErrorBody]),
  ...authErrors,
  402: ErrorBody,
  403: t.Union([SendBlocked, authErrors[403]]),
  404: ErrorBody,
  409: ConflictError,
  413: ErrorBody,
  422: ErrorBody,
  502: DeliveryFailure,
});
