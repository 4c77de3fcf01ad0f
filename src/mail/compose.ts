import MailComposer from "nodemailer/lib/mail-composer";
import { encodeWord, foldLines } from "nodemailer/lib/mime-funcs";
import { type DkimKey, dkimSignMessage } from "./dkim-sign.ts";
import { mimeBytes } from "./mime-bytes.ts";

export type ComposeInput = {
  from: string;
  fromName?: string | null;
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative to the text (the service's own mail to people: reviewer notifications). */
  html?: string;
  /** Without angle brackets. */
  messageId: string;
  /** Message-ID of the message replied to, with or without angle brackets. */
  inReplyTo?: string | null;
  references?: string[];
  /**
   * RFC 8058 one-click unsubscribe: an https URL and a mailto address or URI. Without an https
   * URL (a service run on plain http) only the mailto is offered and no one-click header is set.
   */
  unsubscribe?: { url: string | null; mailto: string } | null;
  dkim?: DkimKey | null;
  date?: Date;
  /** Files sent as attachments after the text (multipart/mixed); names and types checked by the caller. */
  attachments?: { filename: string; contentType: string; content: Uint8Array }[];
  /** An iMIP part (RFC 6047): text/calendar with this METHOD, as an alternative to the text. */
  calendar?: { method: string; content: string } | null;
  /**
   * RFC 3834 Auto-Submitted (docs/decisions.md): `auto-generated` for what an agent writes,
   * `auto-replied` for a reply to automatic mail; null sets none. Either way a responder that
   * follows RFC 3834 (vacation, helpdesk) does not answer it, and Exchange is asked the same
   * with X-Auto-Response-Suppress. No Precedence: that is the mark of bulk mail.
   */
  autoSubmitted?: "auto-generated" | "auto-replied" | null;
};

// RFC 8058 §4 asks that List-Unsubscribe and List-Unsubscribe-Post be covered by the
// signature; the rest is what a receiver needs to trust who sent what, and the thread.
const SIGNED_HEADERS = [
  "From",
  "Sender",
  "Reply-To",
  "To",
  "Cc",
  "Subject",
  "Date",
  "Message-ID",
  "In-Reply-To",
  "References",
  "MIME-Version",
  "Content-Type",
  "Content-Transfer-Encoding",
  "List-Unsubscribe",
  "List-Unsubscribe-Post",
  "Auto-Submitted",
].join(":");

// Long threads keep the root and the most recent ids (RFC 5322 §3.6.4 allows trimming).
const MAX_REFERENCES = 20;
const MAX_URL = 900;
const BARE_ADDRESS = /^[^\s<>,;:"@()[\]\\]+@[^\s<>,;:"@()[\]\\]+$/;
const MSG_ID = /^[\x21-\x3b\x3d\x3f-\x7e]+@[\x21-\x3b\x3d\x3f-\x7e]+$/;

/** Builds the RFC 5322 bytes of a one-recipient text/plain UTF-8 message (with attachments, multipart/mixed), DKIM-signed when asked. */
export async function composeMessage(m: ComposeInput): Promise<Uint8Array> {
  const built = await composeUnsigned(m);
  return m.dkim ? signMessage(built, m.dkim) : built;
}

/** The message of composeMessage before signing (its `dkim` is ignored); sign it with signMessage. */
export async function composeUnsigned(m: ComposeInput): Promise<Uint8Array> {
  // Written synchronously (mime-bytes.ts); nodemailer's stream build() for anything it does not write.
  const root = composerFor(m).compile();
  return new Uint8Array(mimeBytes(root) ?? (await root.build()));
}

/** nodemailer's composer for `m`, after every check (exported for test/mail/mime-bytes.test.ts). */
export function composerFor(m: ComposeInput): MailComposer {
  // Every value below lands in a header; a line break there is header injection.
  for (const [name, value] of Object.entries({
    from: m.from,
    fromName: m.fromName,
    to: m.to,
    subject: m.subject,
    messageId: m.messageId,
    inReplyTo: m.inReplyTo,
    unsubscribeUrl: m.unsubscribe?.url,
    unsubscribeMailto: m.unsubscribe?.mailto,
  })) {
    assertNoLineBreak(name, value);
  }
  for (const ref of m.references ?? []) assertNoLineBreak("references", ref);
  if (m.calendar && !/^[A-Z-]{1,20}$/.test(m.calendar.method)) throw new Error("calendar.method must be an iTIP method such as REPLY");
  for (const file of m.attachments ?? []) {
    assertNoLineBreak("attachment filename", file.filename);
    assertNoLineBreak("attachment content type", file.contentType);
  }

  // The callers pass addr-specs from parseSingleAddress; anything list-like here is a bug.
  for (const [name, value] of [
    ["from", m.from],
    ["to", m.to],
  ] as const) {
    if (!BARE_ADDRESS.test(value)) throw new Error(`${name} must be a single bare email address`);
  }

  const messageId = bareMessageId(m.messageId);
  if (!messageId) throw new Error("messageId must look like local@domain without angle brackets");
  // An original's Message-ID comes from someone else's mail: a malformed one is dropped (the
  // reply still goes out, unthreaded for the recipient), as malformed References entries are.
  const inReplyTo = m.inReplyTo ? bareMessageId(m.inReplyTo) : null;

  const headers: Record<string, { prepared: true; value: string }> = {};
  if (m.unsubscribe) {
    headers["List-Unsubscribe"] = { prepared: true, value: listUnsubscribeValue(m.unsubscribe) };
    if (m.unsubscribe.url) headers["List-Unsubscribe-Post"] = { prepared: true, value: "List-Unsubscribe=One-Click" };
  }

  if (m.autoSubmitted) {
    headers["Auto-Submitted"] = { prepared: true, value: m.autoSubmitted };
    headers["X-Auto-Response-Suppress"] = { prepared: true, value: "OOF, AutoReply" };
  }

  const references = trimReferences(m.references ?? [], inReplyTo);
  const encodedSubject = subjectNeedingEncoding(m.subject);
  if (encodedSubject) headers.Subject = { prepared: true, value: encodedSubject };
  return new MailComposer({
    from: m.fromName ? { name: m.fromName, address: m.from } : { address: m.from },
    to: { address: m.to },
    subject: encodedSubject ? undefined : m.subject,
    text: { content: m.text, contentType: "text/plain; charset=utf-8" },
    html: m.html ? { content: m.html, contentType: "text/html; charset=utf-8" } : undefined,
    messageId: `<${messageId}>`,
    inReplyTo: inReplyTo ? `<${inReplyTo}>` : undefined,
    references: references.length ? references.map((id) => `<${id}>`) : undefined,
    date: m.date ?? new Date(),
    headers,
    icalEvent: m.calendar ? { method: m.calendar.method, content: m.calendar.content } : undefined,
    attachments: m.attachments?.map((file) => ({
      filename: file.filename,
      contentType: file.contentType,
      content: Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength),
      contentDisposition: "attachment" as const,
      // base64 whatever the type: the bytes arrive exactly as they were given
      encoding: "base64",
    })),
    newline: "win",
    // Content never comes from files or URLs; refuse them outright.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
}

/** Prepends the DKIM-Signature for `key`, covering the headers a receiver needs (SIGNED_HEADERS). */
export function signMessage(message: Uint8Array, key: DkimKey): Promise<Uint8Array> {
  return dkimSignMessage(message, key, SIGNED_HEADERS);
}

/**
 * nodemailer folds a plain ASCII subject at whitespace and never inside a word: a run of spaces at
 * a fold point (a subject ending in a space, say) becomes a line holding only whitespace, which
 * RFC 5322 allows only as obsolete syntax, and a word longer than a line makes a line past the
 * 998-octet limit. Such a subject goes out as RFC 2047 encoded words (spaces inside them), folded
 * between the words; any other subject is left to nodemailer. Returns the folded value, or null.
 */
function subjectNeedingEncoding(subject: string): string | null {
  const plainLines = foldLines(`Subject: ${subject}`, 76).split("\r\n");
  if (!plainLines.some((line) => /^[ \t]*$/.test(line) || line.length > 998)) return null;
  const words = encodeWord(subject, "Q", 52).split(" ");
  return words.join("\r\n ");
}

function assertNoLineBreak(name: string, value: string | null | undefined): void {
  if (typeof value === "string" && /[\r\n]/.test(value)) {
    throw new Error(`${name} must not contain CR or LF`);
  }
}

/** The id without surrounding angle brackets, or null when it is not a plausible msg-id. */
function bareMessageId(raw: string): string | null {
  const id = raw.trim().replace(/^<(.*)>$/, "$1");
  return MSG_ID.test(id) ? id : null;
}

/**
 * References from inbound mail can be anything; malformed entries are dropped rather than
 * failing the reply, which still threads through In-Reply-To.
 */
function trimReferences(refs: string[], inReplyTo: string | null): string[] {
  const ids = refs.map(bareMessageId).filter((id): id is string => id !== null);
  // RFC 5322 §3.6.4: a reply's References ends with the parent's Message-ID.
  if (inReplyTo && ids[ids.length - 1] !== inReplyTo) ids.push(inReplyTo);
  if (ids.length <= MAX_REFERENCES) return ids;
  return [ids[0]!, ...ids.slice(ids.length - (MAX_REFERENCES - 1))];
}

function listUnsubscribeValue(u: { url: string | null; mailto: string }): string {
  const url = u.url?.trim() ?? null;
  // RFC 8058 §3: the one-click URI must be HTTPS.
  if (url !== null && (!/^https:\/\/[\x21-\x7e]+$/.test(url) || /[<>]/.test(url) || url.length > MAX_URL)) {
    throw new Error("unsubscribe.url must be an https URL without spaces or angle brackets");
  }
  const mailto = u.mailto.trim().startsWith("mailto:") ? u.mailto.trim() : `mailto:${u.mailto.trim()}`;
  if (!/^mailto:[^\s<>@]+@[^\s<>@]+$/.test(mailto) || !/^[\x21-\x7e]+$/.test(mailto) || mailto.length > MAX_URL) {
    throw new Error("unsubscribe.mailto must be a mailto URI or an email address");
  }
  return url === null ? `<${mailto}>` : `<${url}>, <${mailto}>`;
}
