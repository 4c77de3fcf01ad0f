// The part of a message its author wrote now: the body without the quoted history a mail client
// appends under a reply or forward, and without the signature below a "-- " line or a mobile
// client's "Sent from my ..." line. Works on the sanitized text (so nothing hidden from a human
// comes back); for HTML-only mail the quote containers clients mark (Gmail's gmail_quote, Apple
// Mail's and Thunderbird's blockquote type=cite, Outlook's divRplyFwdMsg) are cut from the HTML
// first and the rest goes through the same sanitizer as the body.

import { stripQuoteContainers } from "./reply-html.ts";
import { sanitizeBody } from "./sanitize.ts";

// "On <date>, <name> wrote:" and its translations; the date and name part may wrap onto a second line.
const ATTRIBUTION_END = new RegExp(
  [
    String.raw`\bwrote\s*:`, // English
    String.raw`\ba\s+écrit\s*:`, // French
    String.raw`\bschrieb(\s+[^:]{0,80})?:`, // German ("schrieb Anna <a@b>:")
    String.raw`\bescribió\s*:`, // Spanish
    String.raw`\bha\s+scritto\s*:`, // Italian
    String.raw`\bschreef(\s+[^:]{0,80})?:`, // Dutch
    String.raw`\bescreveu\s*:`, // Portuguese
    String.raw`\bpisze\s*:`, // Polish ("W dniu … pisze:")
    String.raw`\bnapisał(\(a\)|a)?\s*:`, // Polish
    String.raw`написал(а)?\s*:`, // Russian
    String.raw`\bskrev(\s+[^:]{0,80})?:`, // Danish, Norwegian, Swedish
    String.raw`\bkirjoitti\s*:`, // Finnish
    String.raw`\byazdı\s*:`, // Turkish
    String.raw`写道\s*[:：]`, // Chinese
    String.raw`のメッセージ\s*[:：]`, // Japanese ("… のメッセージ:")
    String.raw`작성\s*[:：]`, // Korean
  ].join("|"),
  "iu",
);
const ATTRIBUTION_START = /^\s*(on|le|am|el|il|op|em|w dniu|den|på|в|on\s.+,|\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|\d{4}年)\b/iu;

const SEPARATOR = new RegExp(
  [
    String.raw`^\s*-{2,}\s*(original message|ursprüngliche nachricht|message d'origine|mensaje original|messaggio originale|oorspronkelijk bericht|mensagem original|original meddelelse|opprinnelig melding|ursprungligt meddelande|alkuperäinen viesti|исходное сообщение|wiadomość oryginalna)\s*-{2,}\s*$`,
    String.raw`^\s*-{2,}\s*(forwarded message|weitergeleitete nachricht|message transféré|mensaje reenviado|messaggio inoltrato|doorgestuurd bericht)\s*-{2,}\s*$`,
    String.raw`^\s*(begin forwarded message|anfang der weitergeleiteten nachricht|début du message réexpédié)\s*:\s*$`,
    String.raw`^\s*_{20,}\s*$`, // Outlook's rule above the header block
  ].join("|"),
  "iu",
);

// Outlook's header block: "From:" then "Sent:"/"Date:"/"To:"/"Subject:" within a few lines.
const HEADER_FROM = /^\s*\*?(from|von|de|van|da|från|fra|od|от|lähettäjä)\s*\*?\s*:\s*\S/iu;
const HEADER_NEXT =
  /^\s*\*?(sent|date|to|subject|cc|gesendet|datum|an|betreff|envoyé|date|à|objet|enviado|fecha|para|asunto|inviato|data|oggetto|verzonden|aan|onderwerp|skickat|till|ämne|sendt|til|emne|отправлено|кому|тема)\s*\*?\s*:/iu;

const SIGNATURE_DELIMITER = /^--\s*$/;
const MOBILE_SIGNATURE =
  /^\s*(sent from my \w+|sent from (mail|outlook) for \w+|get outlook for \w+|sent from yahoo mail\b|envoyé de mon \w+|von meinem \w+ gesendet|enviado desde mi \w+|inviato da(l mio)? \w+|verzonden vanaf mijn \w+|отправлено с \w+)/iu;

/** The new text of a plain-text body (already sanitized). Null in, null out. */
export function replyTextOfPlain(body: string | null): string | null {
  if (body === null) return null;
  const lines = body.replace(/\r\n?/g, "\n").split("\n");
  const { end, skip } = quoteRegion(lines);
  const kept: string[] = [];
  for (let i = 0; i < end; i++) {
    const line = lines[i]!;
    if (SIGNATURE_DELIMITER.test(line) || MOBILE_SIGNATURE.test(line)) break;
    // Inline quoting: the author's words between quoted lines are kept, the quoted lines are not.
    if (skip.has(i) || isQuoted(line)) continue;
    kept.push(line);
  }
  return tidy(kept.join("\n"));
}

const isQuoted = (line: string) => /^\s*>/.test(line);
const isBlank = (line: string) => line.trim() === "";

/**
 * Where the quoted history starts (lines.length when there is none), and the attribution lines of
 * inline quoting, which are dropped while the answers between the quotes are kept.
 */
function quoteRegion(lines: string[]): { end: number; skip: Set<number> } {
  const skip = new Set<number>();
  // From here on every line is quoted or blank.
  let tail = lines.length;
  while (tail > 0 && (isQuoted(lines[tail - 1]!) || isBlank(lines[tail - 1]!))) tail--;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (SEPARATOR.test(line)) return { end: i, skip };
    if (HEADER_FROM.test(line) && lines.slice(i + 1, i + 5).some((next) => HEADER_NEXT.test(next))) return { end: i, skip };
    const span = attributionSpan(lines, i);
    if (span > 0) {
      if (!inlineAnswersAfter(lines, i + span)) return { end: i, skip };
      for (let k = i; k < i + span; k++) skip.add(k);
      i += span - 1;
      continue;
    }
    // A trailing block of "> " lines; an attribution in a form we do not know (a line ending in a
    // colon, as Gmail writes it in Russian or Japanese) directly above it goes with it.
    if (isQuoted(line) && i >= tail) {
      let above = i - 1;
      while (above >= 0 && isBlank(lines[above]!)) above--;
      const end = above >= 0 && /[:：]\s*$/.test(lines[above]!) && lines[above]!.length <= 300 && !skip.has(above) ? above : i;
      return { end, skip };
    }
  }
  return { end: lines.length, skip };
}

/** 1 or 2 when an attribution ("On …, X wrote:") starts at line i (2 when wrapped), else 0. */
function attributionSpan(lines: string[], i: number): number {
  const line = lines[i]!;
  if (ATTRIBUTION_END.test(line) && line.length <= 300 && (ATTRIBUTION_START.test(line) || quotedAfter(lines, i))) return 1;
  if (i + 1 < lines.length && ATTRIBUTION_START.test(line) && !ATTRIBUTION_END.test(line)) {
    const joined = `${line} ${lines[i + 1]}`;
    if (ATTRIBUTION_END.test(joined) && joined.length <= 300) return 2;
  }
  return 0;
}

/** Whether the lines after an attribution-like line are quoted (">" lines, after blank ones). */
function quotedAfter(lines: string[], index: number): boolean {
  for (let j = index + 1; j < lines.length && j <= index + 3; j++) {
    if (isBlank(lines[j]!)) continue;
    return isQuoted(lines[j]!);
  }
  return false;
}

/** Whether, after the first quoted line from `from`, the author wrote more (inline answers). */
function inlineAnswersAfter(lines: string[], from: number): boolean {
  let j = from;
  while (j < lines.length && !isQuoted(lines[j]!)) j++;
  for (; j < lines.length; j++) {
    const line = lines[j]!;
    if (SIGNATURE_DELIMITER.test(line) || MOBILE_SIGNATURE.test(line)) return false;
    if (!isQuoted(line) && !isBlank(line)) return true;
  }
  return false;
}

function tidy(text: string): string {
  // A rule left above cut history (Outlook's <hr>, a line of dashes) is not the author's text.
  return text
    .replace(/[ \t]+$/gm, "")
    .replace(/(\n\s*[-_=*]{3,}\s*)+$/, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * The new text of a stored message: from its HTML when the message had only HTML (quote
 * containers cut, then sanitized like the body), otherwise from its sanitized text.
 */
export function replyText(input: { bodyClean: string | null; bodyRaw: string | null; maxChars: number }): string | null {
  const raw = input.bodyRaw;
  if (raw && looksLikeHtml(raw)) {
    const stripped = stripQuoteContainers(raw);
    if (stripped !== null) {
      const clean = sanitizeBody({ html: stripped }, { maxChars: input.maxChars }).body_clean;
      return replyTextOfPlain(clean ?? "");
    }
  }
  return replyTextOfPlain(input.bodyClean);
}

function looksLikeHtml(text: string): boolean {
  return /<(html|body|div|p|br|blockquote|table|span)\b/i.test(text.slice(0, 5000));
}
