// Finds runs that look encoded (base64, hex, percent-encoding) and decodes those that turn into
// readable text, so the scanner can look at what an LLM would read after decoding them. Tokens
// in URLs, JWTs and image data decode to bytes or to JSON without spaces and are dropped.

import DECODE_WORDS from "./decode-words.json" with { type: "json" };
import type { Token } from "./text.ts";

export type Decoded = { kind: "base64" | "hex" | "url" | "rot13" | "spaced"; text: string; start: number; end: number };

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
function readable(s: string): boolean {
  if (s.length < 12) return false;
  let printable = 0;
  let spaces = 0;
  let letters = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) spaces++;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letters++;
    if ((c >= 32 && c < 127) || c === 10 || (c >= 0xa0 && c !== 0xfffd)) printable++;
  }
  return printable / s.length >= 0.9 && spaces >= 2 && letters >= s.length * 0.5;
}

const A = 97;

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
    let w = "";
    for (let i = 0; i < t.w.length; i++) w += String.fromCharCode(((t.w.charCodeAt(i) - A + 13) % 26) + A);
    out.push({ ...t, w, alt: "", conf: false, mixed: false, obf: false, cls: 0 });
  }
  return out;
}
