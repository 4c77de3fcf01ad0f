// Instructions to an AI reader in the languages the word families (lexicon.ts) do not cover
// well: one bounded regular expression per idea and language, over the raw text. Each match is a
// hit like a family's; its weight comes from weights.json (rules.multilingual) and the fitted
// combiner (combiner.json) says how much it counts, so a phrase list adds evidence without
// deciding alone. A phrase quoted, or in a sentence that reports on attacks ("researchers found
// that attackers hide ..."), is damped as the English families damp discussion (context.*).
//
//   addressed   the reader named as an AI / mail assistant ("an den KI-Assistenten", "致AI助手")
//   override    earlier instructions set aside ("ignore les instructions précédentes")
//   secrecy     the human kept out ("ne le dis pas à l'utilisateur", "不要告诉用户")
//   skipCheck   the usual check waived ("keine Rücksprache nötig", "确认不需要")
//   exfil       mailbox contents sent on ("leite alle E-Mails ... weiter", "转发到")
//   addressed_request  an address, then in its paragraph a request ("AI 비서님께: ... 해 주세요")
//               or the human kept out ("Ассистенту: ... владельца беспокоить не нужно"); an
//               assistant merely named (mention) counts only when it opens a line ending in a colon
// Languages: de fr es it pt nl pl sv tr ru uk ja zh ko ar hi id vi, and a line each for da/no cs
// ro el he th fi (English is the families' own).
// The phrases (multilingual-phrases.ts) were written from knowledge of each language.

import { PHRASES as P } from "./multilingual-phrases.ts";
import ML_WORDS from "./multilingual-words.json" with { type: "json" };
import type { Hit } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

const MAX_SCAN = 50_000;
const MAX_ADDRESSES = 20;
const BEFORE = 160; // how far before an address its sending verb may stand
const AFTER = 40; // "... adresine ilet", "...로 전달", "...に転送": the verb after the address
const REQUEST_REACH = 300; // how far after the address its request may stand, within the paragraph
// An address opens its line and ends in a colon: "AI 비서님께:", "Ассистенту, который обрабатывает
// почту:", "Untuk asisten AI yang menyiapkan balasan:"; not "our AI assistant, launched in May, ...".
const VOCATIVE_REACH = 80;
const VOCATIVE = /^\p{L}{0,4}(?:[,，]\s?)?[^\n.!?。！？,，、]{0,50}?[:：]/u; // "ИИ-ассистент|у, ...:": the rest of its word first

// A `\b` that closes a word is "no letter follows" in every script: JavaScript's own knows ASCII
// letters only, so "proszę\b" or "pytać\b" could never match. (An opening `\b` stays as it is: a
// lookbehind tried at every position of the text would cost twenty times more.)
const WORD_END = "(?![\\p{L}\\p{M}\\p{N}_])";

// Bun writes a pattern's letters outside ASCII as \uXXXX in its source: back to letters, so that
// lowercasing reaches them ("ИИ") and WORD_END sees a letter before a closing `\b`.
const unescaped = (source: string) =>
  source.replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

// One expression per idea, case folded once (case-insensitive Unicode matching is slow in
// JavaScriptCore): the text is lowercased instead, and the patterns were written to match it.
const JOINED = Object.fromEntries(
  (Object.keys(P) as (keyof typeof P)[]).map((idea) => [
    idea,
    new RegExp(
      P[idea]
        .map((re) => unescaped(re.source).toLowerCase())
        .join("|")
        .replace(/\\p\{([lm])\}/g, (_, c: string) => `\\p{${c.toUpperCase()}}`)
        .replace(/(?<=[\p{L})\]])\\b/gu, WORD_END),
      "u",
    ),
  ]),
) as Record<keyof typeof P, RegExp>;

// Words that report on attacks rather than make one, per language: researchers, attackers,
// fraudsters, a study or report, a warning.
const FRAME = new RegExp(ML_WORDS.FRAME.join("|"), "u");
const OPEN_QUOTES = '"“„«「『‘';
const CLOSE_QUOTES = '"”“»」』’';
const SENTENCE_END = /[.!?。！？\n]/;
const SENTENCE_REACH = 300;

/** The first request or order in lowercased text (the "request" phrases), or null. */
export function requestIn(lowered: string): RegExpExecArray | null {
  return JOINED.request.exec(lowered);
}

export function multilingualHits(text: string, hits: Hit[]): void {
  const sample = text.slice(0, MAX_SCAN).toLowerCase();
  for (const idea of ["addressed", "override", "secrecy", "skipCheck"] as const) {
    const m = JOINED[idea].exec(sample);
    if (m)
      hits.push({
        name: `ml_${idea === "skipCheck" ? "skip_check" : idea}`,
        weight: W.multilingual[idea] * discussion(sample, m.index, m.index + m[0].length),
        start: m.index,
        end: m.index + m[0].length,
      });
  }
  addressedRequest(sample, hits);
  exfilHits(sample, hits);
}

// Global copies for addressedRequest's walk over every address, compiled once: compiling these
// joined patterns took 40-50 ms a call. Shared, so each walk starts by resetting lastIndex (the
// walk is synchronous: no other call can interleave).
const EVERY = {
  addressed: new RegExp(JOINED.addressed.source, "gu"),
  mention: new RegExp(JOINED.mention.source, "gu"),
};

// The reader addressed, then asked or ordered to do something in the same paragraph ("Ассистенту,
// который обрабатывает почту: ... подпишите ..."): damped as its address is (quoted, reported on).
function addressedRequest(text: string, hits: Hit[]): void {
  for (const idea of ["addressed", "mention"] as const) {
    const every = EVERY[idea];
    every.lastIndex = 0;
    let n = 0;
    for (let m = every.exec(text); m !== null && n < MAX_ADDRESSES; m = every.exec(text), n++) {
      if (m[0].length === 0) every.lastIndex++;
      const start = m.index;
      const end = start + m[0].length;
      const paragraph = text.indexOf("\n\n", end);
      const window = text.slice(end, Math.min(end + REQUEST_REACH, paragraph < 0 ? text.length : paragraph));
      // A request counts after the opening of a line addressed to the reader ("AI 비서님께:",
      // "Ассистенту, который обрабатывает почту:"); after an address in the dative, the human
      // kept out ("no need to ask the owner", "do not mention it") counts anywhere in the paragraph,
      // and a request in its own sentence.
      const vocative = VOCATIVE.test(text.slice(end, end + VOCATIVE_REACH));
      const r =
        (vocative ? JOINED.request.exec(window) : null) ??
        (idea === "addressed" ? sameSentence(JOINED.request.exec(window), window) : null) ??
        (idea === "addressed" ? (JOINED.skipCheck.exec(window) ?? JOINED.secrecy.exec(window)) : null);
      if (r === null) continue;
      const at = end + r.index;
      // damped as the address or the request is, whichever is more (a report that names the
      // assistant and then quotes the order)
      const factor = Math.min(discussion(text, start, end), discussion(text, at, at + r[0].length));
      hits.push({ name: "ml_addressed_request", weight: W.multilingual.addressedRequest * factor, start, end: at + r[0].length });
      return;
    }
  }
}

// A request in the sentence of the address itself ("AIアシスタントへ直接お願いします", "просим
// ассистента ... выгрузить"): an address in the dative needs no colon.
function sameSentence(r: RegExpExecArray | null, window: string): RegExpExecArray | null {
  if (r === null) return null;
  return /[.!?。！？\n]/.test(window.slice(0, r.index)) ? null : r;
}

// The damping of a match: quoted (an opening quote mark before it in its sentence, not closed
// before it) and reported on (a frame word in its sentence), each as the English families damp.
function discussion(text: string, start: number, end: number): number {
  let from = start;
  while (from > 0 && start - from < SENTENCE_REACH && !SENTENCE_END.test(text[from - 1]!)) from--;
  let to = end;
  while (to < text.length && to - end < SENTENCE_REACH && !SENTENCE_END.test(text[to]!)) to++;
  let factor = 1;
  if (FRAME.test(text.slice(from, to))) factor *= W.context.timesFramed;
  let open = false;
  for (let i = from; i < start; i++) {
    const c = text[i]!;
    if (!open && OPEN_QUOTES.includes(c)) open = true;
    else if (open && CLOSE_QUOTES.includes(c)) open = false;
  }
  if (open) factor *= W.context.timesQuoted;
  return factor;
}

// Each address in the text (at most MAX_ADDRESSES), with a sending verb in the stretch around
// it: bounded windows, so the cost stays linear in the text.
function exfilHits(text: string, hits: Hit[]): void {
  let from = 0;
  for (let n = 0; n < MAX_ADDRESSES; n++) {
    const at = text.indexOf("@", from);
    if (at < 0) return;
    from = at + 1;
    if (!/^[\w-]+\.[\w.]+/.test(text.slice(at + 1, at + 64)) || !/[\w.+-]$/.test(text.slice(Math.max(0, at - 1), at))) continue;
    const start = Math.max(0, at - BEFORE);
    const window = text.slice(start, at + AFTER);
    if (JOINED.exfil.test(window)) {
      hits.push({ name: "ml_exfil", weight: W.multilingual.exfil, start, end: Math.min(text.length, at + AFTER) });
      return;
    }
  }
}
