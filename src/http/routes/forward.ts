// POST /api/v1/messages/{id}/forward.
import { t } from "elysia";
import { forwardMessage } from "../../core/forward.ts";
import type { Services } from "../../core/services.ts";
import { authErrors, ConflictError, ErrorBody, PathId, strictObject } from "../../request/models.ts";
import { clientId, DeliveryFailure, PendingApproval, PermanentRejection, SendBlocked } from "../../request/outgoing-models.ts";
import { apiRoutes } from "../route-kit.ts";

const Sent = strictObject({ id: t.String(), thread_id: t.String(), provider_message_id: t.String() });

export const forwardRoutes = (svc: Services) =>
  apiRoutes(svc, "forward").post(
    "/messages/:id/forward",
    async ({ principal, params, body, set }) => {
      const response = await forwardMessage(svc, principal, params.id, body);
      set.status = response.status;
      return response.body as never;
    },
    {
      auth: "write",
      params: t.Object({ id: PathId }),
      body: strictObject({
        to: t.String({ minLength: 1, maxLength: 998, description: "exactly one address" }),
        text: t.Optional(t.String({ minLength: 1, maxLength: 100_000, description: "a note above the forwarded message" })),
        client_id: clientId("idempotency key, as for send; must not start with `draft:`"),
      }),
      response: {
        200: t.Object(Sent.properties, {
          description: "the stored result of an earlier completed forward with this client_id and payload",
        }),
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
      },
      detail: {
        summary: "Forward a message",
        description:
          "Sends the message (received or sent) to one new recipient from the mailbox that holds it, as a new " +
          "conversation: subject `Fwd: …`, the optional note, a `---------- Forwarded message ---------` block " +
          "(From, Date, Subject, To) and the original's sanitized text inline, and the original's attachments " +
          "(at most ATTACHMENT_MAX_BYTES together, else 413). Checks and answers are POST /send's, in its order, " +
          "idempotency included. A message screened as an injection risk or a virus, or not screened yet, is " +
          "never sent by a key alone: it is held as a pending draft (202) for a human, whatever the mailbox's " +
          "require_approval. 404 `message not found` as for GET /messages/{id}.",
      },
    },
  );
