// Finds runs that look encoded (base64, hex, percent-encoding) and decodes those that turn into
// readable text, so the scanner can look at what an LLM would read after decoding them. Tokens
// in URLs, JWTs and image data decode to bytes or to JSON without spaces and are dropped.

import DECODE_WORDS from "./decode-words.json" with { type: "json" };
import type { Token } from "./text.ts";

export type Decoded = { kind: "base64" | "hex" | "url" | "rot13" | "spaced" | "reversed"; text: string; start: number; end: number };

const MAX_RUNS = 32; // per text: enough for real mail, bounded for hostile input
const MAX_RUN_CHARS = 16_384;

const isB64 = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 45 || c === 95;
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
const isUrlChar = (c: number) => isB64(c) || c === 37 || c === 46 || c === 126;

/** One pass per kind over the character codes; no regular expression sees the whole text. */
export function findEncoded(text: string, tokens: Token[]): Decoded[] {
  const out: Decoded[] = [];
  let budget = MAX_RUNS;
  const tryRun = (kind: Decoded["kind"], start: number, end: number, decode: (run: string) => string | null) => {
    if (budget <= 0) return;
    budget--;
    const decoded = decode(text.slice(start, Math.min(end, start + MAX_RUN_CHARS)));
    if (decoded !== null && readable(decoded)) out.push({ kind, text: decoded, start, end });
  };
  // base64 and compact hex: runs of the base64 alphabet
  runs(text, isB64, 20, (start, end) => {
    let upper = false;
    let digitOrSymbol = false;
    let hexOnly = true;
    for (let k = start; k < end; k++) {
      const c = text.charCodeAt(k);
      if (c >= 65 && c <= 90) upper = true;
      else if (c < 65) digitOrSymbol = true;
      if (!isHex(c)) hexOnly = false;
    }
    if (hexOnly && end - start >= 24) tryRun("hex", start, end, fromHex);
    else if (upper || digitOrSymbol) tryRun("base64", start, end, fromBase64); // not a long plain word
  });
  spacedHex(tokens, (start, end) => tryRun("hex", start, end, fromHex));
  letterSpaced(text, (start, end) => tryRun("spaced", start, end, fromSpaced));
  namedRot13(text, (start, end) => tryRun("rot13", start, end, rot13));
  reversedLines(text, (start, end) => {
    if (budget <= 0) return;
    budget--;
    out.push({ kind: "reversed", text: Array.from(text.slice(start, end)).reverse().join(""), start, end });
  });
  if (countOf(text, "%", 3) >= 3) {
    runs(text, isUrlChar, 12, (start, end) => {
      if (countOf(text.slice(start, end), "%", 3) >= 3) tryRun("url", start, end, fromPercent);
    });
  }
  return out;
}

function runs(text: string, inRun: (c: number) => boolean, min: number, found: (start: number, end: number) => void): void {
  let i = 0;
  while (i < text.length) {
    while (i < text.length && !inRun(text.charCodeAt(i))) i++;
    const start = i;
    while (i < text.length && inRun(text.charCodeAt(i))) i++;
    if (i - start >= min) found(start, i);
  }
}

// "69 67 6e 6f ...": at least 16 two-digit hex tokens, each one character after the last.
function spacedHex(tokens: Token[], found: (start: number, end: number) => void): void {
  let first = 0;
  let count = 0;
  for (let k = 0; k <= tokens.length; k++) {
    const t = tokens[k];
    const pair = t !== undefined && t.w.length === 2 && isHex(t.w.charCodeAt(0)) && isHex(t.w.charCodeAt(1)) && !t.link;
    if (pair && count > 0 && t.start - tokens[k - 1].end === 1) {
      count++;
      continue;
    }
    if (count >= 16) found(tokens[first].start, tokens[k - 1].end);
    first = k;
    count = pair ? 1 : 0;
  }
}

// "s e n d   t h e   i n b o x": at least 16 single characters, each one to three spaces after
// the last, so the words hide from every word-level family. One pass over the characters.
const isGap = (c: number) => c === 32 || c === 9;
function letterSpaced(text: string, found: (start: number, end: number) => void): void {
  const single = (k: number) =>
    k < text.length &&
    !isGap(text.charCodeAt(k)) &&
    text.charCodeAt(k) !== 10 &&
    (k + 1 >= text.length || isGap(text.charCodeAt(k + 1)) || text.charCodeAt(k + 1) === 10);
  let i = 0;
  while (i < text.length) {
    if (!single(i) || (i > 0 && !isGap(text.charCodeAt(i - 1)) && text.charCodeAt(i - 1) !== 10)) {
      i++;
      continue;
    }
    const start = i;
    let end = i + 1;
    let count = 1;
    for (;;) {
      let k = end;
      while (k < text.length && k - end < 3 && isGap(text.charCodeAt(k))) k++;
      if (k === end || !single(k)) break;
      end = k + 1;
      count++;
    }
    if (count >= 16) found(start, end);
    i = end;
  }
}

// A line the text itself says is rot13 ("Для ИИ-помощника (ROT13, латиница):" then the line):
// the English test of looksRot13 misses rot13 of other languages' words.
function namedRot13(text: string, found: (start: number, end: number) => void): void {
  const lower = text.slice(0, 100_000).toLowerCase();
  let at = -1;
  for (const name of DECODE_WORDS.ROT13_NAMES) {
    const k = lower.indexOf(name);
    if (k >= 0 && (at < 0 || k < at)) at = k;
  }
  if (at < 0) return;
  let start = text.indexOf("\n", at);
  while (start >= 0 && start < text.length && start - at < 300) {
    const end = text.indexOf("\n", start + 1) < 0 ? text.length : text.indexOf("\n", start + 1);
    if (text.slice(start + 1, end).trim() !== "") {
      found(start + 1, Math.min(end, start + 1 + MAX_REVERSED_LINE));
      return;
    }
    start = end;
  }
}

/** Latin letters, either case, turned 13 places; everything else as it is. */
function rot13(run: string): string {
  let out = "";
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    const base = c >= 65 && c <= 90 ? 65 : c >= 97 && c <= 122 ? 97 : -1;
    out += base < 0 ? run[i] : String.fromCharCode(((c - base + 13) % 26) + base);
  }
  return out;
}

// A line written right to left: it opens on a sentence's closing mark and ends on a letter
// (".nerekurb lit arf", "。户用知告要不"), or holds an address whose dot sits before the "@"
// and none after it ("moc.qh-ecapsbaloc@pukcab"). Real mail lines do neither; the reversal is
// only scanned, so a false candidate costs a scan and adds a signal only if it reads as an order.
const MAX_REVERSED_LINE = 2_000;
const CLOSERS = ".。!?！？"; // sentence-closing marks
function reversedLines(text: string, found: (start: number, end: number) => void): void {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let a = start;
    let b = end;
    while (a < b && isGap(text.charCodeAt(a))) a++;
    while (b > a && (isGap(text.charCodeAt(b - 1)) || text.charCodeAt(b - 1) === 13)) b--;
    if (b - a >= 20 && b - a <= MAX_REVERSED_LINE && looksReversed(text.slice(a, b))) found(a, b);
    start = end + 1;
  }
}

function looksReversed(line: string): boolean {
  const first = line[0];
  const last = line.codePointAt(line.length - 1) ?? 0;
  const endsOnLetter = /\p{L}/u.test(
    String.fromCodePoint(last >= 0xdc00 && last <= 0xdfff ? (line.codePointAt(line.length - 2) ?? 0) : last),
  );
  if (CLOSERS.includes(first) && line[1] !== first && line[1] !== " " && endsOnLetter) return true;
  for (const word of line.split(" ")) {
    const at = word.indexOf("@");
    if (at <= 0 || at === word.length - 1 || word.length > 120) continue;
    const dot = word.indexOf(".");
    if (dot > 0 && dot < at && word.indexOf(".", at) < 0 && dot <= 6) return true;
  }
  return false;
}

// One space joins letters into a word; two or more end the word.
function fromSpaced(run: string): string | null {
  return run
    .split(/[ \t]{2,}/)
    .map((w) => w.replace(/[ \t]/g, ""))
    .join(" ");
}

function countOf(s: string, ch: string, enough: number): number {
  let n = 0;
  for (let i = s.indexOf(ch); i >= 0 && n < enough; i = s.indexOf(ch, i + 1)) n++;
  return n;
}

function fromBase64(run: string): string | null {
  const std = run.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const usable = std.slice(0, std.length - (std.length % 4 === 1 ? 1 : 0));
  return Buffer.from(usable, "base64").toString("utf8");
}

function fromHex(run: string): string | null {
  const digits = run.replace(/[ :]/g, "");
  return Buffer.from(digits.slice(0, digits.length - (digits.length % 2)), "hex").toString("utf8");
}

function fromPercent(run: string): string | null {
  const spaced = run.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  }
}

// Text, not bytes: mostly printable, several words.
const LETTER = /\p{L}/u;
function readable(s: string): boolean {
  if (s.length < 12) return false;
  let printable = 0;
  let spaces = 0;
  let letters = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) spaces++;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letters++;
    else if (c >= 0xc0 && c !== 0xfffd && LETTER.test(s[i])) letters++; // other scripts' text decodes too
    if ((c >= 32 && c < 127) || c === 10 || (c >= 0xa0 && c !== 0xfffd)) printable++;
  }
  return printable / s.length >= 0.9 && spaces >= 2 && letters >= s.length * 0.5;
}

// Words every rot13'd English sentence contains ("the", "and", "you", "all", "to", "is").
const ROT13_COMMON = new Set(DECODE_WORDS.ROT13_COMMON);

/** Whether the text looks like it carries rot13'd English, worth a second pass. */
export function looksRot13(tokens: Token[]): boolean {
  const seen = new Set<string>();
  for (const t of tokens) if (ROT13_COMMON.has(t.w)) seen.add(t.w);
  return seen.size >= 2;
}

/** The same tokens read through rot13, for the families to scan again. */
export function rot13Tokens(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    if (t.link || !/^[a-z]+$/.test(t.w)) {
      // Only letters rotate; anything else must not carry its plain meaning into this pass.
      out.push({ ...t, w: t.link ? t.w : "", alt: "", obf: false, cls: 0 });
      continue;
    }
    out.push({ ...t, w: rot13(t.w), alt: "", conf: false, mixed: false, obf: false, cls: 0 });
  }
  return out;
}
