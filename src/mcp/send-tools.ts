// send_email: POST /api/v1/send.

import { sendMessage } from "../core/outbound/index.ts";
import { strictObject } from "../request/models.ts";
import { clientId } from "../request/outgoing-models.ts";
import { outgoingArguments } from "./outgoing-fields.ts";
import { sendResult } from "./results.ts";
import { defineTool } from "./tool.ts";

export const sendEmailTool = defineTool({
  name: "send_email",
  title: "Send an email",
  description:
    "Send one plain-text email from one of your mailboxes to exactly one recipient. " +
    "Always pass a client_id you make up (e.g. a UUID) and reuse it when you retry the same email: a repeat with the same client_id " +
    "and the same arguments returns the first result instead of sending twice; the same client_id with different arguments is refused " +
    "(409 idempotency_conflict). To reply in a thread pass reply_to_message_id. " +
    'Results: {id, thread_id, provider_message_id} when sent; {draft_id, status: "pending_approval"} when the mailbox needs a human\'s ' +
    "approval or the mailbox is paused: the email is held for a human: do not resend it (a human approves or rejects it; list_drafts shows it waiting until then, and an unanswered review expires as rejected). Errors are {status, error, code}: retry (with the same " +
    "client_id) only when `retryable` is true; " +
    "409 idempotency_in_progress: the first attempt is still being settled, call again with the same client_id in a few seconds for its final answer; " +
    "502 delivery_outcome_unknown: the email went out to its end but no reply came, so it may or may not have arrived; it is not sent again, " +
    "and sending it anew risks a duplicate, so tell the user or check with the recipient first; " +
    "403 send_blocked_by_list and 422 (recipient suppressed) are final for that recipient.",
  input: strictObject({
    ...outgoingArguments,
    client_id: clientId("your idempotency key for this email, 1 to 256 characters, not starting with `draft:`; reuse it on retries"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  endpointClass: "write",
  run: async ({ svc, principal }, args) => ({ body: sendResult(await sendMessage(svc, principal, args)) }),
});
