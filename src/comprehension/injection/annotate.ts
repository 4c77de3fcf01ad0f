// Gives each token its lexicon classes: rejoins spaced-out letters ("i g n o r e"), reads
// leetspeak where that yields a known word, merges known phrases into one token, and looks up
// classes (stems by prefix). Lookups are cached per distinct word.

import { FUNCTION_WORDS, LEXICON, WORDS } from "./lexicon.ts";
import type { Token } from "./text.ts";

const exact = new Map<string, number>();
const stems = new Map<string, { stem: string; bits: number }[]>(); // keyed by the stem's first 3 letters
const phrases = new Map<string, string[][]>(); // keyed by first word, longest first
const vocabulary = new Set<string>(FUNCTION_WORDS); // whole words, for splitting joined letters
const SUFFIXES = ["", "s", "e", "es", "ed", "ing", "ion", "ions", "tion", "tions", "ly", "er", "ers", "en", "ung", "ungen"];

function addPhrase(words: string[], bits: number): void {
  const key = words.join("_");
  exact.set(key, (exact.get(key) ?? 0) | bits);
  const list = phrases.get(words[0]) ?? [];
  if (!list.some((p) => p.join("_") === key)) list.push(words);
  list.sort((a, b) => b.length - a.length);
  phrases.set(words[0], list);
  for (const w of words) vocabulary.add(w);
}

for (const [bits, words] of LEXICON) {
  for (const entry of words) {
    if (entry.includes(" ")) addPhrase(entry.split(" "), bits);
    else if (entry.endsWith("*")) {
      const stem = entry.slice(0, -1);
      const list = stems.get(stem.slice(0, 3)) ?? [];
      list.push({ stem, bits });
      stems.set(stem.slice(0, 3), list);
      for (const suffix of SUFFIXES) vocabulary.add(stem + suffix);
    } else {
      exact.set(entry, (exact.get(entry) ?? 0) | bits);
      vocabulary.add(entry);
    }
  }
}
for (const phrase of WORDS.extraPhrases) addPhrase(phrase.split(" "), 0);

const classCache = new Map<string, number>();

export function classify(word: string): number {
  const cached = classCache.get(word);
  if (cached !== undefined) return cached;
  let bits = exact.get(word) ?? 0;
  for (const { stem, bits: b } of stems.get(word.slice(0, 3)) ?? []) if (word.startsWith(stem)) bits |= b;
  if (classCache.size > 50_000) classCache.clear();
  classCache.set(word, bits);
  return bits;
}

export function isKnown(word: string): boolean {
  return vocabulary.has(word) || classify(word) !== 0;
}

/** Classes, phrases and disguises resolved; returns a new token list. */
export function annotate(tokens: Token[]): Token[] {
  const joined = rejoinSpacedLetters(tokens);
  for (const t of joined) resolveDisguise(t);
  const merged = mergePhrases(joined);
  for (const t of merged) t.cls = t.link ? 0 : classify(t.w);
  return merged;
}

function resolveDisguise(t: Token): void {
  if (t.link) return;
  if (t.alt !== "" && !isKnown(t.w)) {
    const asL = t.alt.replace(/i/g, (ch, k: number) => (t.w[k] === "1" ? "l" : ch));
    const reading = isKnown(t.alt) ? t.alt : isKnown(asL) ? asL : "";
    if (reading !== "") {
      t.w = reading;
      t.obf = true;
    }
  }
  if (t.conf && (t.mixed || isKnown(t.w))) t.obf = true;
}

const LEET_DIGIT = /^[013457]$/;

// A run of four or more one-letter tokens close together is text spelled out to dodge word
// matching; the letters are joined and split again at the longest known words.
function rejoinSpacedLetters(tokens: Token[]): Token[] {
  if (!hasSpacedRun(tokens)) return tokens;
  const out: Token[] = [];
  let i = 0;
  while (i < tokens.length) {
    let j = i;
    while (j < tokens.length && isSpacedLetter(tokens[j]) && (j === i || (!tokens[j].brk && tokens[j].start - tokens[j - 1].end <= 4))) j++;
    if (j - i >= 4) {
      out.push(...splitWords(tokens.slice(i, j)));
      i = j;
    } else {
      out.push(tokens[i]);
      i++;
    }
  }
  return out;
}

function hasSpacedRun(tokens: Token[]): boolean {
  let run = 0;
  for (const t of tokens) {
    run = t.w.length === 1 && isSpacedLetter(t) ? run + 1 : 0;
    if (run >= 4) return true;
  }
  return false;
}

function isSpacedLetter(t: Token): boolean {
  if (t.link || t.w.length !== 1) return false;
  const c = t.w.charCodeAt(0);
  return (c >= 97 && c <= 122) || LEET_DIGIT.test(t.w);
}

function splitWords(run: Token[]): Token[] {
  const letters = run
    .map((t) =>
      t.alt !== ""
        ? t.alt
        : t.w === "0"
          ? "o"
          : t.w === "1"
            ? "i"
            : t.w === "3"
              ? "e"
              : t.w === "4"
                ? "a"
                : t.w === "5"
                  ? "s"
                  : t.w === "7"
                    ? "t"
                    : t.w,
    )
    .join("");
  const out: Token[] = [];
  let k = 0;
  const cap = Math.min(letters.length, 4000); // longer runs are not language
  while (k < cap) {
    let len = Math.min(20, cap - k);
    while (len > 1 && !vocabulary.has(letters.slice(k, k + len))) len--;
    const word = letters.slice(k, k + len);
    if (len > 1 || vocabulary.has(word)) {
      const first = run[k];
      const last = run[k + len - 1];
      out.push({ ...first, w: word, alt: "", end: last.end, punct: last.punct, obf: true, brk: k === 0 ? first.brk : false });
    }
    k += len;
  }
  return out;
}

// Compacts in place: the list is the caller's own.
function mergePhrases(tokens: Token[]): Token[] {
  let out = 0;
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i];
    const candidates = t.link ? undefined : phrases.get(t.w);
    let taken = 0;
    if (candidates !== undefined) {
      for (const p of candidates) {
        if (i + p.length > tokens.length) continue;
        let ok = true;
        for (let k = 1; k < p.length && ok; k++) {
          const n = tokens[i + k];
          ok = !n.link && !n.brk && n.w === p[k];
        }
        if (ok) {
          taken = p.length;
          break;
        }
      }
    }
    if (taken > 1) {
      const last = tokens[i + taken - 1];
      const parts = tokens.slice(i, i + taken);
      tokens[out++] = {
        ...t,
        w: parts.map((p) => p.w).join("_"),
        alt: "",
        end: last.end,
        punct: last.punct,
        obf: parts.some((p) => p.obf),
        conf: parts.some((p) => p.conf),
      };
      i += taken;
    } else {
      tokens[out++] = t;
      i++;
    }
  }
  tokens.length = out;
  return tokens;
}
