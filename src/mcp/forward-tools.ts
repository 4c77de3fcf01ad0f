// forward_message: POST /api/v1/messages/{id}/forward.
import { t } from "elysia";
import { forwardMessage } from "../core/outbound/index.ts";
import { strictObject } from "../request/models.ts";
import { clientId } from "../request/outgoing-models.ts";
import { sendResult } from "./results.ts";
import { defineTool } from "./tool.ts";

export const forwardMessageTool = defineTool({
  name: "forward_message",
  title: "Forward a message",
  description:
    "Forward a message (received or sent) with its attachments to exactly one new recipient, from the mailbox that holds it, as a " +
    "new conversation: your optional note, then a '---------- Forwarded message ---------' block and the original's text. Pass a " +
    "client_id and reuse it on retries (same rules as send_email). Results: {id, thread_id, provider_message_id} when sent; " +
    '{draft_id, status: "pending_approval"} when it is held for a human: do not resend (the mailbox requires approval, or the ' +
    "message was screened as a prompt-injection risk or malware, which are never forwarded without a person's approval). " +
    "403 send_blocked_by_list and 422 (recipient suppressed) are final for that recipient; 413 when the attachments are too large.",
  input: strictObject({
    message_id: t.String({ minLength: 1, maxLength: 100, description: "the message to forward (msg_...)" }),
    to: t.String({ minLength: 1, maxLength: 998, description: "exactly one recipient address" }),
    text: t.Optional(t.String({ minLength: 1, maxLength: 100_000, description: "an optional note above the forwarded message" })),
    client_id: clientId("your idempotency key, 1 to 256 characters, not starting with `draft:`; reuse it on retries"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  endpointClass: "write",
  run: async ({ svc, principal }, { message_id, ...body }) => ({
    body: sendResult(await forwardMessage(svc, principal, message_id, body)),
  }),
});
