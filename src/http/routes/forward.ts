// POST /api/v1/messages/{id}/forward.
import { t } from "elysia";
import { forwardMessage } from "../../core/outbound/index.ts";
import type { Services } from "../../core/services.ts";
import { PathId, strictObject } from "../../request/models.ts";
import { clientId, sendAnswers } from "../../request/outgoing-models.ts";
import { answerOfOutcome } from "../../request/send-answers.ts";
import { apiRoutes } from "../route-kit.ts";

export const forwardRoutes = (svc: Services) =>
  apiRoutes(svc, "forward").post(
    "/messages/:id/forward",
    async ({ principal, params, body, set }) => {
      const response = answerOfOutcome(await forwardMessage(svc, principal, params.id, body));
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
      response: sendAnswers("forward"),
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
