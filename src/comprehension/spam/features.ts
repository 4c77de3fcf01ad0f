// Turns a raw RFC 822 message into the set of tokens the spam classifier weighs: words of the
// text a human would see, link hosts, and header facts (sender domain, origin relay, message-id
// and reply-to consistency, mailer, a Date that disagrees with the arrival time, the top-level
// transfer encoding) that bulk senders get wrong more often than people do.
// Every token is a presence flag; counts become coarse bucket tokens.

import { type AddressObject, type ParsedMail, simpleParser } from "mailparser";
import { readablePrefix } from "../../mail/readable-prefix.ts";
import { sanitizeBody } from "../../mail/sanitize.ts";
import { charGrams, cueTokens, modernTokens, senderCuePairs, wordGrams } from "./modern.ts";
import { bucket, registrable } from "./shapes.ts";

// Parsing cost grows with size; spam content lives in the first part of a message anyway.
const MAX_RAW_BYTES = 256 * 1024;
const MAX_TEXT_CHARS = 50_000;
const MAX_WORD = 24;

// Headers added on the receiving side (delivery agents, mail stores, other filters) say how
// the recipient keeps mail, not what the sender sent; in a corpus they even leak the folder a
// message was filed in. They are never tokens.
const RECEIVER_SIDE_HEADERS =
  /^(x-spam|x-virus|x-razor|x-pyzor|x-dcc|delivered-to|x-original-to|x-envelope-|x-delivered-to|delivery-date|x-keywords|x-status|status|x-uid|x-mozilla-|x-evolution|x-sieve|x-mail-from|x-mdaemon-|content-length|lines)/;

// Headers a mailing list adds on the way through describe the channel, not the author: spam
// posted to a list carries them too. Learned, they make "came through a list" mean ham.
const LIST_CHANNEL_HEADERS =
  /^(list-|x-mailing-list|mailing-list|x-beenthere|x-mailman-|x-list|x-loop|x-egroups-|x-yahoo-|x-ml-|sender$|errors-to|precedence)/;

// A list server's footer ("____\nFoo mailing list\n...") sits after a rule line near the end.
const LIST_FOOTER_RULE = /\n[ \t]*(?:_{20,}|-{20,})[ \t]*(?=\n)/g;
const LIST_FOOTER_REACH = 2_000;

const PARSE_OPTIONS = {
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipTextLinks: true,
  skipImageLinks: true,
};

// receivedAt: when the message reached us. Without it, the newest Received header's timestamp
// stands in (in the training corpus that is the recipient's own server stamping arrival).
export type SpamContext = { receivedAt?: Date };

// Which optional token kinds a model was trained with (its file says; classifier.ts passes it on).
// wordGrams: n for character n-grams of the words of every alphabet (0 or absent: none).
export type SpamFeatureOptions = { wordGrams?: number };

export async function spamFeatures(
  raw: Uint8Array | string,
  context: SpamContext = {},
  options: SpamFeatureOptions = {},
): Promise<Set<string>> {
  const input = toParserInput(raw);
  let parsed: ParsedMail;
  try {
    parsed = await simpleParser(input, PARSE_OPTIONS);
  } catch (error) {
    // Past the parser's limits (too many parts, a huge part header) score what it can read, as
    // the message's own fields are read (mail/readable-prefix.ts), rather than failing open.
    if ((error as { code?: string })?.code !== "EMAXLEN" || typeof input === "string") throw error;
    parsed = await simpleParser((await readablePrefix(input)).bytes, PARSE_OPTIONS);
  }
  const tokens = new Set<string>();
  headerTokens(parsed, tokens);
  dateTokens(parsed, context.receivedAt ?? newestReceivedDate(parsed), tokens);
  bodyTokens(parsed, tokens, options);
  modernTokens(parsed, tokens);
  senderCuePairs(tokens);
  return tokens;
}

function toParserInput(raw: Uint8Array | string): Buffer | string {
  if (typeof raw === "string") return stripMboxLine(raw).slice(0, MAX_RAW_BYTES);
  let bytes = raw.subarray(0, MAX_RAW_BYTES);
  // An mbox "From " separator line is not a header; the parser would read it as one.
  if (bytes[0] === 0x46 && new TextDecoder().decode(bytes.subarray(0, 5)) === "From ") {
    const eol = bytes.indexOf(0x0a);
    bytes = eol < 0 ? bytes.subarray(bytes.length) : bytes.subarray(eol + 1);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function stripMboxLine(text: string): string {
  if (!text.startsWith("From ")) return text;
  const eol = text.indexOf("\n");
  return eol < 0 ? "" : text.slice(eol + 1);
}

function headerTokens(mail: ParsedMail, out: Set<string>): void {
  for (const { key } of mail.headerLines) {
    if (!RECEIVER_SIDE_HEADERS.test(key) && !LIST_CHANNEL_HEADERS.test(key)) out.add(`h:${key}`);
  }

  const subject = mail.subject ?? "";
  if (!subject.trim()) out.add("s:empty");
  for (const w of words(subject)) out.add(`s:${w}`);
  if (/^\s*(re|aw|sv)\s*:/i.test(subject)) out.add("s:reply");
  if (/^\s*(fwd?|fw)\s*:/i.test(subject)) out.add("s:forward");
  out.add(`s:caps:${capsBucket(subject)}`);
  if (subject.includes("!")) out.add("s:bang");
  if (/\s{3,}\S+$/.test(subject)) out.add("s:trailing-junk");
  const rawSubject = headerLine(mail, "subject");
  const charset = /=\?([^?]+)\?/.exec(rawSubject)?.[1];
  if (charset) out.add(`s:charset:${charset.toLowerCase()}`);

  const from = firstAddress(mail.from);
  if (!from) out.add("from:none");
  else {
    const [, domain = ""] = splitAddress(from.address);
    out.add(`from:d:${registrable(domain)}`);
    out.add(`from:tld:${domain.split(".").pop() ?? ""}`);
    if (!from.name) out.add("from:noname");
    else {
      for (const w of words(from.name)) out.add(`from:n:${w}`);
      if (from.name.includes("@")) out.add("from:name-has-address");
      out.add(`from:n:caps:${capsBucket(from.name)}`);
    }
    const replyTo = firstAddress(mail.replyTo);
    if (replyTo) {
      const same = registrable(splitAddress(replyTo.address)[1] ?? "") === registrable(domain);
      out.add(same ? "replyto:same-domain" : "replyto:other-domain");
    }
    const mid = mail.messageId ?? "";
    const midDomain = /@([^>\s]+)>?$/.exec(mid)?.[1];
    if (!mid) out.add("mid:none");
    else if (!midDomain) out.add("mid:no-domain");
    else out.add(registrable(midDomain) === registrable(domain) ? "mid:from-domain" : "mid:other-domain");
  }

  const recipients = addressCount(mail.to) + addressCount(mail.cc);
  out.add(`rcpt:n:${bucket(recipients)}`);
  if (/undisclosed|recipient list suppressed/i.test(headerLine(mail, "to"))) out.add("rcpt:undisclosed");

  received(mail, out);

  const mailer = headerText(mail, "x-mailer") || headerText(mail, "user-agent");
  if (!mailer) out.add("mailer:none");
  for (const w of words(mailer).slice(0, 3)) out.add(`mailer:${w}`);
  for (const name of ["x-priority", "x-msmail-priority", "importance"]) {
    const value = headerText(mail, name).toLowerCase().split(/[\s(]/)[0];
    if (value) out.add(`${name}:${value}`);
  }
  if (!mail.date) out.add("date:none");
  // A single-part message's own encoding; multipart messages have none at the top.
  const encoding = headerText(mail, "content-transfer-encoding").trim().toLowerCase();
  if (encoding) out.add(`cte:${encoding}`);
}

// Bulk mailers stamp a Date hours ahead of delivery (to sort on top of an inbox) or reuse a
// stale one, and write zone names where mail software writes a numeric offset.
const DATE_AHEAD_HOURS = 2;
const DATE_STALE_HOURS = 48;

function dateTokens(mail: ParsedMail, receivedAt: Date | undefined, out: Set<string>): void {
  const line = headerLine(mail, "date");
  if (line && !/[+-]\d{4}/.test(line)) out.add("date:no-numeric-tz");
  if (!mail.date || !receivedAt || Number.isNaN(mail.date.getTime()) || Number.isNaN(receivedAt.getTime())) return;
  const lagHours = (receivedAt.getTime() - mail.date.getTime()) / 3_600_000;
  out.add(lagHours < -DATE_AHEAD_HOURS ? "date:ahead" : lagHours > DATE_STALE_HOURS ? "date:stale" : "date:on-time");
}

function newestReceivedDate(mail: ParsedMail): Date | undefined {
  const value = mail.headers.get("received");
  const newest = Array.isArray(value) ? value[0] : value;
  if (newest === undefined) return undefined;
  const stamp = String(newest).split(";").pop()?.trim();
  return stamp ? new Date(stamp) : undefined;
}

// Only the earliest relay hop (the last Received header) describes the sender; later hops are
// the recipient's own infrastructure, and learning them would learn one mailbox's plumbing.
function received(mail: ParsedMail, out: Set<string>): void {
  const value = mail.headers.get("received");
  const hops = Array.isArray(value) ? value : value ? [value] : [];
  const origin = String(hops[hops.length - 1] ?? "");
  if (!origin) return void out.add("rcv:none");
  const helo = /^\s*from\s+(\S+)/i
    .exec(origin)?.[1]
    ?.toLowerCase()
    .replace(/[()[\]]/g, "");
  if (!helo) out.add("rcv:no-helo");
  else if (isIp(helo)) out.add("rcv:helo-ip");
  else if (!helo.includes(".")) out.add("rcv:helo-bare");
  else out.add(`rcv:d:${registrable(helo)}`);
  if (/\bunknown\b|may be forged/i.test(origin)) out.add("rcv:unknown-rdns");
}

// Only the words and links of the body count, read as a human would see them: the sanitizer's
// visible text, so words hidden in invisible markup (filler that dilutes a spammy message) are
// not read, only counted. The body's shape (HTML or not, tables, comments, attachments,
// length) is left out: the training ham holds almost no HTML, so the model would read
// "formatted like a newsletter" as spam, and legitimate newsletters are ham.
function bodyTokens(mail: ParsedMail, out: Set<string>, options: SpamFeatureOptions): void {
  const html = typeof mail.html === "string" ? mail.html.slice(0, MAX_TEXT_CHARS * 4) : "";
  const text = (mail.text ?? "").slice(0, MAX_TEXT_CHARS);
  const visible = sanitizeBody({ text, html }, { maxChars: MAX_TEXT_CHARS });
  let body = visible.body_clean ?? "";
  if (isListMail(mail)) body = withoutListFooter(body);
  const seen = new Set(words(body));
  for (const w of seen) {
    out.add(w);
    // A five-letter prefix: one token for the inflections of a word in any language.
    if (w.length >= 7 && !w.startsWith("long:")) out.add(`st:${w.slice(0, 5)}`);
  }
  if (options.wordGrams) {
    for (const w of words(mail.subject ?? "")) seen.add(w);
    wordGrams(seen, options.wordGrams, out);
  }
  charGrams(body, out);
  cueTokens(`${mail.subject ?? ""}\n${body}`, out);
  if (visible.report.hidden_elements > 0) out.add(`hidden:n:${bucket(visible.report.hidden_elements)}`);
  urls(`${text}\n${html}`, out);
}

function isListMail(mail: ParsedMail): boolean {
  return mail.headerLines.some(({ key }) => key.startsWith("list-") || key === "x-mailing-list" || key === "x-beenthere");
}

function withoutListFooter(body: string): string {
  const reach = Math.max(0, body.length - LIST_FOOTER_REACH);
  for (const rule of body.matchAll(LIST_FOOTER_RULE)) {
    if (rule.index >= reach) return body.slice(0, rule.index);
  }
  return body;
}

function urls(text: string, out: Set<string>): void {
  let n = 0;
  // Only the host: the path of a link or image names a template's files ("spacer.gif",
  // "unsubscribe"), which every newsletter shares with spam.
  for (const m of text.matchAll(/\b(?:https?|ftp):\/\/([^\s"'<>/?#]+)/gi)) {
    n++;
    const host = m[1]!.toLowerCase().replace(/^[^@]*@/, "");
    const name = host.replace(/:\d+$/, "");
    if (name !== host) out.add("url:port");
    if (isIp(name) || /^\d+$/.test(name)) out.add("url:ip");
    else {
      out.add(`url:${registrable(name)}`);
      out.add(`url:tld:${name.split(".").pop()}`);
    }
  }
  out.add(`url:n:${bucket(n)}`);
  if (/mailto:/i.test(text)) out.add("url:mailto");
}

// Words as spammers and people write them: split on whitespace, trimmed of punctuation but
// keeping "$5000" and "100%", case folded. An overlong run (encoded junk, a pasted key) is one
// token by its first letter and length, so it cannot flood the vocabulary.
export function words(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(/\s+/)) {
    const w = piece.replace(/^[^\p{L}\p{N}$]+|[^\p{L}\p{N}%]+$/gu, "").toLowerCase();
    if (w.length < 2) continue;
    out.push(w.length > MAX_WORD ? `long:${w[0]}:${bucket(w.length)}` : w);
  }
  return out;
}

function capsBucket(text: string): string {
  const letters = count(text, /\p{L}/gu);
  if (letters < 8) return "na";
  return String(Math.round((count(text, /\p{Lu}/gu) / letters) * 5));
}

// 0, 1, 2, 3-4, 5-8, ...: coarse enough to generalise, fine enough to separate one link from fifty.
function count(text: string, re: RegExp): number {
  let n = 0;
  for (const _ of text.matchAll(re)) n++;
  return n;
}

function isIp(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}

function firstAddress(field: AddressObject | AddressObject[] | undefined): { address: string; name: string } | undefined {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  const first = list[0]?.value[0];
  return first ? { address: first.address ?? "", name: first.name ?? "" } : undefined;
}

function addressCount(field: AddressObject | AddressObject[] | undefined): number {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.reduce((n, a) => n + a.value.length, 0);
}

function splitAddress(address: string): [string, string] {
  const at = address.lastIndexOf("@");
  return at < 0 ? [address.toLowerCase(), ""] : [address.slice(0, at).toLowerCase(), address.slice(at + 1).toLowerCase()];
}

function headerLine(mail: ParsedMail, key: string): string {
  return mail.headerLines.find((h) => h.key === key)?.line ?? "";
}

function headerText(mail: ParsedMail, key: string): string {
  const value = mail.headers.get(key);
  return typeof value === "string" ? value : "";
}
