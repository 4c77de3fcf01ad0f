// Parses a received message with mailparser into the fields we store. Hostile or broken MIME
// never throws out of here: whatever cannot be parsed is recorded as a warning and left empty.
import { type AddressObject, type ParsedMail, simpleParser } from "mailparser";
import { type Bytes, joined } from "../byte-blocks.ts";
import { sha256HexInSlices } from "../sha256-in-slices.ts";
import { inSlices } from "./in-slices.ts";
import { MAX_MIME_PARTS, readablePrefix } from "./readable-prefix.ts";

export type ParsedAttachment = {
  filename: string | null;
  contentType: string;
  size: number;
  sha256: string;
  contentId: string | null;
  disposition: string | null;
  content: Uint8Array;
};

export type ParsedInbound = {
  fromAddr: string | null;
  subject: string;
  rfcMessageId: string | null;
  inReplyTo: string | null;
  references: string[];
  date: Date | null;
  text: string | null;
  html: string | null;
  /** First value of each header field as plain text, names lower-cased (what screening reads). */
  headerValues: Record<string, string>;
  attachments: ParsedAttachment[];
  warnings: string[];
  /** Why part of the message was left unread (screening then never reports it complete); null when all was read. */
  unread: string | null;
};

const MAX_ID_LENGTH = 998;
const MAX_SUBJECT_LENGTH = 2000;
const MAX_REFERENCES = 100;

const PARSE_OPTIONS = {
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipImageLinks: true,
  skipTextLinks: true,
  // Keep message/delivery-status as a part: bounce handling reads it (mailparser folds it into the text otherwise).
  keepDeliveryStatus: true,
} as Parameters<typeof simpleParser>[1];

const describe = (error: unknown) => String((error as Error)?.message ?? error).slice(0, 200);

export async function parseInbound(raw: Bytes): Promise<ParsedInbound> {
  const warnings: string[] = [];
  let unread: string | null = null;
  let mail: ParsedMail | null = null;
  try {
    mail = await simpleParser(inSlices(raw), PARSE_OPTIONS);
  } catch (error) {
    warnings.push(`unparsable message: ${describe(error)}`);
    // The parser gives up on the whole message at its first limit: read the parts before it.
    const prefix = await readablePrefix(joined(raw));
    unread =
      prefix.stoppedBy === "part_limit"
        ? `the message has more than ${MAX_MIME_PARTS} MIME parts; only the first ${MAX_MIME_PARTS} were read`
        : prefix.stoppedBy === "header_limit"
          ? `a MIME part's header is larger than the parser reads; only the ${prefix.parts} part(s) before it were read`
          : `the message could not be parsed (${describe(error)}); its content was not read`;
    if (prefix.stoppedBy !== "end" && prefix.parts > 0) {
      try {
        mail = await simpleParser(prefix.bytes, PARSE_OPTIONS);
      } catch (again) {
        unread = `the message could not be parsed (${describe(again)}); its content was not read`;
      }
    }
  }
  if (unread) warnings.push(`unread content: ${unread}`);
  if (!mail) {
    return {
      fromAddr: null,
      subject: "",
      rfcMessageId: null,
      inReplyTo: null,
      references: [],
      date: null,
      text: null,
      html: null,
      headerValues: {},
      attachments: [],
      warnings,
      unread,
    };
  }

  const attachments: ParsedAttachment[] = [];
  for (const attachment of mail.attachments ?? []) {
    // A view of the parser's buffer, not a copy: an attachment can be many megabytes.
    const bytes = attachment.content ?? new Uint8Array();
    const content = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    attachments.push({
      filename: attachment.filename ? storable(attachment.filename).slice(0, 255) : null,
      contentType: (attachment.contentType || "application/octet-stream").slice(0, 255),
      size: content.byteLength,
      sha256: (await sha256HexInSlices(content))[0]!,
      contentId: attachment.contentId ? storable(attachment.contentId).slice(0, 255) : null,
      disposition: attachment.contentDisposition ?? null,
      content,
    });
  }

  return {
    fromAddr: firstAddress(mail.from),
    subject: storable(mail.subject ?? "")
      .replace(/[\r\n]+/g, " ")
      .slice(0, MAX_SUBJECT_LENGTH),
    rfcMessageId: messageIdOrNull(mail.messageId),
    inReplyTo: messageIdOrNull(mail.inReplyTo),
    references: normalizeReferences(mail.references),
    date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : null,
    text: typeof mail.text === "string" ? mail.text : null,
    html: typeof mail.html === "string" ? mail.html : null,
    headerValues: headerStrings(mail.headers),
    attachments,
    warnings,
    unread,
  };
}

/** mailparser's header map holds strings, address objects and structured values; flatten them. */
function headerStrings(headers: Map<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const first = Array.isArray(value) ? value[0] : value;
    let text: string;
    if (typeof first === "string") text = first;
    else if (first && typeof first === "object" && "text" in first) text = String((first as { text: unknown }).text);
    else if (first && typeof first === "object" && "value" in first) {
      const params = (first as { params?: Record<string, string> }).params ?? {};
      text = [String((first as { value: unknown }).value), ...Object.entries(params).map(([k, v]) => `${k}=${v}`)].join("; ");
    } else if (first instanceof Date) text = first.toISOString();
    else text = String(first ?? "");
    out[name.toLowerCase()] = storable(text).slice(0, 2000);
  }
  return out;
}

/** Postgres text cannot hold NUL; a hostile header must not make a message unstorable. */
function storable(text: string): string {
  return text.replace(/\0/g, "\uFFFD");
}

function firstAddress(field: AddressObject | AddressObject[] | undefined): string | null {
  const objects = Array.isArray(field) ? field : field ? [field] : [];
  for (const object of objects) {
    for (const entry of object.value ?? []) {
      if (entry.address) return storable(entry.address).slice(0, 320);
      for (const member of entry.group ?? []) if (member.address) return storable(member.address).slice(0, 320);
    }
  }
  return null;
}

function messageIdOrNull(value: string | undefined): string | null {
  if (!value) return null;
  const trimmed = storable(value).trim();
  if (!trimmed || trimmed.length > MAX_ID_LENGTH) return null;
  return trimmed;
}

// mailparser gives one string or a list; some senders put several ids in one header value.
function normalizeReferences(value: string | string[] | undefined): string[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  const ids = list.flatMap((entry) => storable(entry).match(/<[^<>\s]+>/g) ?? []);
  return [...new Set(ids)].filter((id) => id.length <= MAX_ID_LENGTH).slice(-MAX_REFERENCES);
}
