// POST /api/v1/send.
import { sendMessage } from "../../core/outbound/index.ts";
import type { Services } from "../../core/services.ts";
import { strictObject } from "../../request/models.ts";
import { clientId, OutgoingFields, sendAnswers } from "../../request/outgoing-models.ts";
import { answerOfOutcome } from "../../request/send-answers.ts";
import { apiRoutes } from "../route-kit.ts";

const SendBody = strictObject({ ...OutgoingFields, client_id: clientId("idempotency key; must not start with `draft:`") });

export const sendRoutes = (svc: Services) =>
  apiRoutes(svc, "send").post(
    "/send",
    async ({ principal, body, set }) => {
      const response = answerOfOutcome(await sendMessage(svc, principal, body));
      set.status = response.status;
      return response.body as never;
    },
    {
      auth: "write",
      body: SendBody,
      response: sendAnswers("send"),
      detail: {
        summary: "Send one email",
        description:
          "Checks run in this order: authentication, body validation (400), mailbox and key binding (403 " +
          "key_scope, 404), idempotency (200 replay, 409 idempotency_conflict / idempotency_in_progress), " +
          "send lists (403 send_blocked_by_list), suppression (422), approval (202 with a forced draft), " +
          "monthly quota (402, terminal for the client_id), delivery (201; 400 permanent rejection; 502 " +
          "transient or delivery_outcome_unknown). With `reply_to_message_id`, the recipient, subject (`Re:` " +
          "once) and thread come from the original unless `to` or `subject` are given. A 402 or 400 " +
          "rejection is stored for the client_id; 403, 422 and transient 502 are not, so a retry is " +
          "evaluated again. After `delivery_outcome_unknown` the client_id answers 409 " +
          "idempotency_in_progress until reconciliation records the outcome.",
      },
    },
  );
