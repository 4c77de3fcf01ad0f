// POST /api/v1/messages/{id}/forward: a message (received or sent) goes to one new recipient with
// its attachments, from the mailbox that holds it, as a new conversation.
//
// Inline, as Gmail and Outlook forward by default: an optional note, the "---------- Forwarded
// message ---------" block (From, Date, Subject, To), then the original's sanitized text, and the
// original's files as attachments. Not message/rfc822: that would re-send the pre-sanitization
// original (hidden text, the sender's HTML and headers), which the service never passes on, and
// many clients and agents read an attached message less well than inline text.
//
// The send checks are POST /send's, in its order (send.ts), with the same idempotency: a client_id
// replays or conflicts as it does there. A message screened as risky (prompt injection, a virus,
// or not screened yet) is never forwarded by a key alone: it is held as a pending draft with its
// files for a human to approve, whatever the mailbox's require_approval says.
import type { Db } from "../../db.ts";
import { copyMessageAttachmentsToDraft, messageAttachmentFiles } from "../attachment-bytes.ts";
import { fullBodies } from "../content.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Principal } from "../principal.ts";
import type { Services } from "../services.ts";
import { attachmentErrors } from "./draft-attachments.ts";
import type { SendOutcome } from "./outcome.ts";
import { resolveMailbox, validateRecipient, validateText } from "./outgoing.ts";
import { sendOutgoing } from "./send.ts";

export type ForwardRequest = { to: string; text?: string; client_id?: string };

// What validateText refuses, taken out of the original (it came from someone else's mail).
const TEXT_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202d\u202e]/g;
const LINE_BREAKS = /[\r\n]+/g;
export const FORWARD_SEPARATOR = "---------- Forwarded message ---------";

type Original = {
  id: string;
  mailbox_id: string;
  direction: "in" | "out";
  from_addr: string;
  to_addr: string;
  subject: string;
  body_clean: string | null;
  body_clean_key: string | null;
  body_clean_sha256: string | null;
  truncated: boolean;
  created_at: Date;
  risk: string | null;
};

/** The message as GET /messages/{id} sees it, with why it must not go out without a human (risk), or the one 404. */
async function findOriginal(db: Db, principal: Principal, id: string): Promise<Original> {
  const [row] = await db<Original[]>`
    select m.id, m.mailbox_id, m.direction, m.from_addr, m.to_addr, m.subject, m.body_clean, m.body_clean_key, m.body_clean_sha256,
      m.truncated, m.created_at,
      case
        when m.direction = 'out' then null
        when m.virus_risk = 'high' or m.comprehension->>'status' = 'skipped_virus' then 'virus'
        when m.comprehension->>'status' = 'skipped_injection_risk' or (m.comprehension->'injection'->>'risky')::boolean
          or exists (select 1 from attachments a where a.message_id = m.id and (a.text_injection->>'risky')::boolean) then 'injection_risk'
        when m.processed_at is null then 'not_screened'
      end as risk
    from messages m
    where m.id = ${id} and m.account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or m.mailbox_id = ${principal.mailboxId})
      and (m.delivery_status is null or m.delivery_status = 'sent')`;
  if (!row) throw errors.notFound("message");
  return row;
}

function forwardSubject(subject: string): string {
  const trimmed = subject.trim();
  return /^(fwd?|fw)\s*:/i.test(trimmed) ? trimmed : `Fwd: ${trimmed}`.trim();
}

const oneLine = (value: string) => value.replace(LINE_BREAKS, " ").replace(TEXT_CONTROLS, "");

/** The note, the forwarded-message block and the original's text, as the body of the forward. */
export function forwardText(
  note: string | undefined,
  original: Pick<Original, "from_addr" | "to_addr" | "subject" | "body_clean" | "truncated" | "created_at">,
): string {
  const block = [
    FORWARD_SEPARATOR,
    `From: ${oneLine(original.from_addr)}`,
    `Date: ${new Date(original.created_at).toUTCString()}`,
    `Subject: ${oneLine(original.subject)}`,
    `To: ${oneLine(original.to_addr)}`,
    "",
    (original.body_clean ?? "").replace(TEXT_CONTROLS, ""),
    ...(original.truncated ? ["", "[the original text was longer and is cut here]"] : []),
  ].join("\n");
  return note ? `${note}\n\n${block}` : block;
}

export async function forwardMessage(svc: Services, principal: Principal, messageId: string, body: ForwardRequest): Promise<SendOutcome> {
  if (body.client_id?.startsWith("draft:")) {
    throw errors.validation("client_id must not start with 'draft:' (reserved)");
  }
  if (body.text !== undefined) validateText(body.text);
  const to = validateRecipient(body.to, true)!;
  // The whole text, from the object store when it holds it (a 503 when it cannot be read).
  const original = await fullBodies(svc, await findOriginal(svc.sql, principal, messageId));
  const mailbox = await resolveMailbox(svc.sql, principal, original.mailbox_id);

  const files = await messageAttachmentFiles(svc, svc.sql, original.id);
  const bytes = files.reduce((sum, file) => sum + file.content.byteLength, 0);
  if (bytes > svc.config.attachments.maxBytes) throw attachmentErrors.tooLarge(svc.config.attachments.maxBytes);

  const outgoing = {
    mailbox,
    to,
    subject: forwardSubject(original.subject),
    text: forwardText(body.text, original),
    threadId: newId("thr"),
    reply: null,
  };
  if (original.risk) svc.log.info("forward.held_for_review", { message_id: original.id, reason: original.risk });
  return sendOutgoing(svc, principal, outgoing, {
    clientId: body.client_id ?? null,
    payload: { forward_of: original.id, to, text: body.text ?? null, client_id: body.client_id ?? null },
    attachments: files,
    holdForHuman: original.risk !== null,
    onHeld: (tx, draftId) => copyMessageAttachmentsToDraft(svc, tx, original.id, draftId, principal),
  });
}
