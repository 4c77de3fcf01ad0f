// rsvp: POST /api/v1/messages/{id}/rsvp.
import { t } from "elysia";
import { rsvpToMessage } from "../core/outbound/index.ts";
import { strictObject } from "../request/models.ts";
import { clientId } from "../request/outgoing-models.ts";
import { sendResult } from "./results.ts";
import { defineTool } from "./tool.ts";

export const rsvpTool = defineTool({
  name: "rsvp",
  title: "Answer a calendar invitation",
  description:
    "Accept, decline or tentatively accept a calendar invitation you received (get_message shows it as comprehension.calendar: " +
    "summary, start and end with their time zone, organizer, attendees, recurrence). Sends the organizer a standard calendar " +
    "reply their calendar applies by itself. Pass a client_id and reuse it on retries. Results: {id, thread_id, " +
    'provider_message_id} when sent; {draft_id, status: "pending_approval"} when it is held for a human: do not resend. ' +
    "400 when the message holds no invitation to answer; 403 send_blocked_by_list and 422 (organizer suppressed) are final.",
  input: strictObject({
    message_id: t.String({ minLength: 1, maxLength: 100, description: "the invitation message (msg_...)" }),
    response: t.Union([t.Literal("accepted"), t.Literal("declined"), t.Literal("tentative")]),
    comment: t.Optional(t.String({ minLength: 1, maxLength: 1000, description: "one line for the organizer" })),
    client_id: clientId("your idempotency key, 1 to 256 characters, not starting with `draft:`; reuse it on retries"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  endpointClass: "write",
  run: async ({ svc, principal }, { message_id, ...body }) => ({
    body: sendResult(await rsvpToMessage(svc, principal, message_id, body)),
  }),
});
