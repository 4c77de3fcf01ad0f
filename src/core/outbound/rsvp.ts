// POST /api/v1/messages/{id}/rsvp: answers a received calendar invitation (METHOD:REQUEST) with an
// iMIP REPLY (RFC 6047) to its organizer, one recipient, through POST /send's checks and order
// (send lists, suppression, approval, quota; idempotent with a client_id), in the invitation's
// thread. The REPLY travels as a text/calendar alternative beside a one-line text, as calendar
// clients send it; a reply held for approval carries it as an .ics attachment instead.
import { buildReply, parseCalendar, type RsvpResponse } from "../../mail/calendar.ts";
import { sha256Hex, storeDraftAttachment } from "../attachment-bytes.ts";
import { calendarParts } from "../calendar.ts";
import { errors } from "../errors.ts";
import type { Principal } from "../principal.ts";
import type { Services } from "../services.ts";
import type { SendOutcome } from "./outcome.ts";
import { resolveMailbox, validateRecipient, validateText } from "./outgoing.ts";
import { sendOutgoing } from "./send.ts";

export type RsvpRequest = { response: RsvpResponse; comment?: string; client_id?: string };

const VERB: Record<RsvpResponse, { subject: string; text: string }> = {
  accepted: { subject: "Accepted", text: "accepted" },
  declined: { subject: "Declined", text: "declined" },
  tentative: { subject: "Tentatively accepted", text: "tentatively accepted" },
};
const UNSAFE_IN_SUBJECT = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]+/g;

export async function rsvpToMessage(svc: Services, principal: Principal, messageId: string, body: RsvpRequest): Promise<SendOutcome> {
  if (body.client_id?.startsWith("draft:")) {
    throw errors.validation("client_id must not start with 'draft:' (reserved)");
  }
  if (body.comment !== undefined) validateText(body.comment);
  if (body.comment?.includes("\n")) throw errors.validation("comment must be one line");
  const [original] = await svc.sql`
    select id, mailbox_id, direction, thread_id, rfc_message_id, "references" from messages
    where id = ${messageId} and account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
      and (delivery_status is null or delivery_status = 'sent')`;
  if (!original) throw errors.notFound("message");
  if (original.direction !== "in") throw errors.validation("only a received invitation can be answered");
  const mailbox = await resolveMailbox(svc.sql, principal, original.mailbox_id);

  const invitation = (await calendarParts(svc, svc.sql, original.id))
    .map((part) => ({ part, info: parseCalendar(part.text) }))
    .find(({ info }) => info?.method === "REQUEST");
  if (!invitation) throw errors.validation("the message holds no calendar invitation (METHOD:REQUEST) to answer");
  const info = invitation.info!;
  if (!info.organizer?.email) throw errors.validation("the invitation names no organizer to answer");
  const organizer = validateRecipient(info.organizer.email, true)!;
  const self = mailbox.address.toLowerCase();
  const listed = info.attendees.find((attendee) => attendee.email === self);
  const reply = buildReply(
    invitation.part.text,
    { email: mailbox.address, name: listed?.name ?? mailbox.display_name ?? null },
    body.response,
    body.comment ?? null,
  );
  if (!reply) throw errors.validation("the message holds no calendar invitation (METHOD:REQUEST) to answer");

  const verb = VERB[body.response];
  const summary = info.summary.replace(UNSAFE_IN_SUBJECT, " ").trim().slice(0, 200);
  const references = [...(original.references as string[]), ...(original.rfc_message_id ? [original.rfc_message_id] : [])];
  const outgoing = {
    mailbox,
    to: organizer,
    subject: summary ? `${verb.subject}: ${summary}` : verb.subject,
    text: `${mailbox.address} has ${verb.text} this invitation.${body.comment ? `\n\n${body.comment}` : ""}`,
    threadId: original.thread_id as string,
    reply: { messageId: original.id, threadId: original.thread_id, inReplyTo: original.rfc_message_id, references },
  };
  const content = new TextEncoder().encode(reply);
  return sendOutgoing(svc, principal, outgoing, {
    clientId: body.client_id ?? null,
    payload: { rsvp_of: original.id, response: body.response, comment: body.comment ?? null, client_id: body.client_id ?? null },
    calendar: { method: "REPLY", content: reply },
    onHeld: async (tx, draftId) => {
      await storeDraftAttachment(tx, {
        draftId,
        accountId: principal.accountId,
        file: { filename: "reply.ics", contentType: "text/calendar; method=REPLY", content },
        sha256: await sha256Hex(content),
        sourceAttachmentId: null,
      });
    },
  });
}
