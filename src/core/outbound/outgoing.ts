// Turns a send or draft request into a resolved outgoing message: the mailbox (with the key's
// binding checked), one recipient, the subject, and the thread when replying.
import type { Db } from "../../db.ts";
import { parseSingleAddress } from "../../mail/address.ts";
import type { OutgoingFile } from "../attachment-bytes.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import { findMailbox, type Mailbox } from "../mailboxes.ts";
import { assertMailboxAllowed, type Principal } from "../principal.ts";
import { policyColumns, type RecipientPolicy } from "./policy.ts";

export type OutgoingRequest = {
  mailbox_id: string;
  text: string;
  to?: string;
  subject?: string;
  reply_to_message_id?: string;
  client_id?: string;
};

export type ReplyContext = { messageId: string; threadId: string; inReplyTo: string | null; references: string[] };

export type ResolvedOutgoing = {
  mailbox: Mailbox;
  /** The recipient's send lists and suppression, when read with the mailbox (resolveOutgoing's withPolicy). */
  policy?: RecipientPolicy;
  to: string | null;
  subject: string;
  text: string;
  threadId: string;
  /** null: not a reply, and threadId is a new thread's (nothing has been sent or received in it) */
  reply: ReplyContext | null;
};

/** A message ready to compose and send: what dispatch.ts is given, or reads from a claimed draft. */
export type DispatchContent = {
  mailbox: Mailbox;
  to: string;
  subject: string;
  text: string;
  threadId: string;
  inReplyTo: string | null;
  references: string[];
  draftId: string | null;
  /** Files sent after the text; recorded with the message as its attachments. */
  attachments?: OutgoingFile[];
  /** An iMIP part (an RSVP's REPLY), sent as text/calendar beside the text. */
  calendar?: { method: string; content: string } | null;
  /** True when it answers automatic mail (a human let it through the loop guard): Auto-Submitted: auto-replied. */
  answersAutomatic?: boolean;
};

const LINE_BREAK = /[\r\n]/;
// Control characters render as nothing or as garbage in a mail client, and the bidi overrides
// (U+202D, U+202E) reorder what a human sees ("invoice\u202Efdp.exe" shows as "invoiceexe.pdf"):
// nothing an agent writes needs them. Tab is allowed everywhere, line breaks in the text only.
const SUBJECT_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f\u202d\u202e]/;
const TEXT_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202d\u202e]/;

/** The body checks every send and draft-create shares (400 errors). */
function validateOutgoingRequest(body: OutgoingRequest, options: { recipientRequired: boolean }): string | null {
  if (body.client_id?.startsWith("draft:")) {
    throw errors.validation("client_id must not start with 'draft:' (reserved)");
  }
  if (body.subject !== undefined) validateSubject(body.subject);
  validateText(body.text);
  return validateRecipient(body.to, options.recipientRequired && body.reply_to_message_id === undefined);
}

/** A subject becomes a header line: a line break in it would inject headers. */
export function validateSubject(subject: string): void {
  if (LINE_BREAK.test(subject)) throw errors.validation("subject must not contain line breaks");
  if (SUBJECT_CONTROLS.test(subject)) throw errors.validation("subject must not contain control characters");
}

export function validateText(text: string): void {
  if (TEXT_CONTROLS.test(text)) throw errors.validation("text must not contain control characters");
}

export function validateRecipient(to: string | undefined | null, required: boolean): string | null {
  if (to === undefined || to === null) {
    if (required) throw errors.validation("to is required unless reply_to_message_id is supplied");
    return null;
  }
  const parsed = parseSingleAddress(to, "to");
  if (!parsed.ok) throw errors.validation(parsed.error);
  return parsed.address;
}

function replySubject(original: string): string {
  const trimmed = original.trim();
  return /^re\s*:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`.trim();
}

/** Sending from a custom-domain mailbox needs a paid plan (403), checked with the mailbox binding. */
export function assertSendingEntitled(plan: "free" | "paid", mailbox: Mailbox): void {
  if (mailbox.domain_id !== null && plan !== "paid") throw errors.paidPlanRequired();
}

/** Checks binding (403) before existence (404), as the contract's anti-enumeration exception requires (docs/api.md). */
export async function resolveMailbox(db: Db, principal: Principal, mailboxId: string): Promise<Mailbox> {
  assertMailboxAllowed(principal, mailboxId);
  const mailbox = await findMailbox(db, principal, mailboxId);
  if (!mailbox) throw errors.notFound("mailbox");
  return mailbox;
}

/**
 * resolveMailbox, with the recipient's policy read in the same statement (one round trip less for
 * a send); the policy is still decided after the mailbox checks, in the order docs/api.md lists.
 */
async function resolveMailboxWithPolicy(
  db: Db,
  principal: Principal,
  mailboxId: string,
  recipient: string,
): Promise<{ mailbox: Mailbox; policy: RecipientPolicy }> {
  assertMailboxAllowed(principal, mailboxId);
  const [row] = await db<(Mailbox & { policy_entries: RecipientPolicy["entries"]; policy_suppressed: boolean })[]>`
    select m.*, ${policyColumns(db, principal, mailboxId, recipient)}
    from mailboxes m where m.id = ${mailboxId} and m.account_id = ${principal.accountId}`;
  if (!row) throw errors.notFound("mailbox");
  const { policy_entries: entries, policy_suppressed: suppressed, ...mailbox } = row;
  return { mailbox: mailbox as Mailbox, policy: { mailboxId, recipient, entries, suppressed } };
}

export async function resolveOutgoing(
  db: Db,
  principal: Principal,
  body: OutgoingRequest,
  options: { allowMissingRecipient?: boolean; withPolicy?: boolean } = {},
): Promise<ResolvedOutgoing> {
  const to = validateOutgoingRequest(body, { recipientRequired: true });
  const { mailbox, policy } =
    options.withPolicy && to !== null
      ? await resolveMailboxWithPolicy(db, principal, body.mailbox_id, to)
      : { mailbox: await resolveMailbox(db, principal, body.mailbox_id), policy: undefined };
  if (body.reply_to_message_id === undefined) {
    return { mailbox, policy, to, subject: body.subject ?? "", text: body.text, threadId: newId("thr"), reply: null };
  }

  // The original must be a message of the same mailbox; anything else is the one 404.
  const [original] = await db`
    select id, direction, from_addr, to_addr, subject, thread_id, rfc_message_id, "references"
    from messages where id = ${body.reply_to_message_id} and account_id = ${principal.accountId} and mailbox_id = ${mailbox.id}`;
  if (!original) throw errors.notFound("message");
  const counterpart = original.direction === "in" ? original.from_addr : original.to_addr;
  let resolvedTo = to;
  if (resolvedTo === null) {
    const parsed = parseSingleAddress(counterpart ?? "", "to");
    if (parsed.ok) resolvedTo = parsed.address;
    else if (!options.allowMissingRecipient) throw errors.validation("the original message has no address to reply to; supply to");
  }
  const references = [...(original.references as string[]), ...(original.rfc_message_id ? [original.rfc_message_id] : [])];
  return {
    mailbox,
    policy,
    to: resolvedTo,
    subject: body.subject ?? replySubject(original.subject),
    text: body.text,
    threadId: original.thread_id,
    reply: { messageId: original.id, threadId: original.thread_id, inReplyTo: original.rfc_message_id, references },
  };
}
