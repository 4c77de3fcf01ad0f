// POST /api/v1/send.
import { t } from "elysia";
import { sendMessage } from "../../core/send.ts";
import type { Services } from "../../core/services.ts";
import { authErrors, ConflictError, ErrorBody, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";
import {
  clientId,
  DeliveryFailure,
  OutgoingFields,
  PendingApproval,
  PermanentRejection,
  SendBlocked,
} from "../../request/outgoing-models.ts";

const SendBody = strictObject({ ...OutgoingFields, client_id: clientId("idempotency key; must not start with `draft:`") });
const Sent = strictObject({ id: t.String(), thread_id: t.String(), provider_message_id: t.String() });

export const sendRoutes = (svc: Services) =>
  apiRoutes(svc, "send").post(
    "/send",
    async ({ principal, body, set }) => {
      const response = await sendMessage(svc, principal, body);
      set.status = response.status;
      return response.body as never;
    },
    {
      auth: "write",
      body: SendBody,
      response: {
        200: t.Object(Sent.properties, { description: "the stored result of an earlier completed send with this client_id and payload" }),
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
