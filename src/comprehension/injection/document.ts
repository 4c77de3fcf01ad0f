// The document stage of the injection detector: a second opinion read off the whole message,
// stacked on the combined score of the rules and the learned stage.
//
// Why: on mail by authors the detector never saw, most false alarms were one strong signal (a
// role marker in a bug report, a learned-stage window of a note about an inbox assistant) in mail
// that, read as a whole, is plainly a report, a policy or a developer's question. A logistic
// regression over the message's words, word pairs and character pairs, trained on independent
// authors' attacks and hard look-alikes (scripts/train-injection-document.ts), tells those apart
// better than any one window can; alone it misses attacks buried in long benign mail, so it never
// flags on its own.
//
// stacked z = say + k × logit(combined score); flagged when z ≥ cut, where say is the document
// logit bounded to [-down, +up] and counted upwards only past a margin: it is there to let go of
// look-alikes, and a short message gives it few words to go on. It lowers a verdict only as far as
// the message's most attack-like paragraph or line allows (viewLogit), so padding cannot clear an
// attack any more than the stage lets go of it unpadded, and never lowers one it read only in part.
// The cut is where a document the model finds neutral keeps the combiner's verdict; a combined
// score of `sure` or more is never lowered. k, the margin and `sure` are chosen leave-one-author-
// out (docs/judgement.md, changes 11 and 12), the bounds fixed in change 11. Mail where no signal
// fired is never read by this stage: its combined score is 0 and stays 0.

import { readFileSync } from "node:fs";

export const DOCUMENT_FORMAT = "injection-document-logreg-v1";

export type Stack = { k: number; up: number; down: number; margin: number; sure: number; cut: number };
export type DocumentModel = { bias: number; weights: Map<string, number>; stack: Stack };
type DocumentFile = { format: string; bias: number; weights: Record<string, number>; stack: Stack };

const DEFAULT_URL = new URL("./document-model.json", import.meta.url);
let shipped: DocumentModel | undefined;

/** The model beside this file, read once per process. */
export function shippedDocumentModel(): DocumentModel {
  shipped ??= parseDocumentModel(JSON.parse(readFileSync(DEFAULT_URL, "utf8")));
  return shipped;
}

export function parseDocumentModel(file: DocumentFile): DocumentModel {
  const s = file?.stack;
  if (
    file?.format !== DOCUMENT_FORMAT ||
    typeof file.bias !== "number" ||
    typeof file.weights !== "object" ||
    ![s?.k, s?.up, s?.down, s?.margin, s?.sure, s?.cut].every((x) => typeof x === "number")
  ) {
    throw new Error(`injection document model: not a ${DOCUMENT_FORMAT} file`);
  }
  return { bias: file.bias, weights: new Map(Object.entries(file.weights)), stack: s };
}

// Bounds: the first 50,000 characters of the visible text and 10,000 of the hidden text are
// read, in at most 1,024 parts of at most 2,000 distinct tokens each, 6,000 for the whole visible
// text and 2,000 for the hidden text; a long newsletter is judged by its opening, as a reader
// judges it, and hidden text always has its own share. A message read only in part is never let
// go by the stage (DocumentView.complete): what was not read could be the attack.
const MAX_VISIBLE = 50_000;
const MAX_HIDDEN = 10_000;
const MAX_SUBJECT = 1_000;
const MAX_PARTS = 1_024;
const MAX_PART_TOKENS = 2_000;
const MAX_WHOLE_TOKENS = 6_000;
const MAX_HIDDEN_TOKENS = 2_000;
const MAX_WORD = 30;
// A part is a paragraph merged with the next ones until it has this many pieces between spaces
// (a greeting or a signature alone says too little), and also every paragraph and every line on
// its own: an attack of one line, in a script written without spaces, or joined to an ordinary
// paragraph by a single line break, is a part of its own however ordinary what it was merged with.
const PART_MIN_WORDS = 30;
const UNSPACED_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]+/gu;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * A message read by the document stage: all of it, its parts (paragraphs, lines, hidden text), and
 * whether every part of it was read (false when a bound cut it short).
 */
export type DocumentView = { whole: Set<string>; parts: Set<string>[]; complete: boolean };

/**
 * Presence tokens: words ("w:"), word pairs ("b:"), character pairs of scripts written without
 * spaces ("c:"); words on "> " reply lines carry "q" and hidden text "h" in front, so an attack
 * quoted in a newsletter and one hidden from the human are features of their own.
 */
export function documentView(subject: string, body: string, hidden: string): DocumentView {
  const hiddenParts = parts(hidden.slice(0, MAX_HIDDEN), "h");
  const hiddenKept = hiddenParts.slice(0, MAX_PARTS / 2);
  const visibleParts = parts(`${subject.slice(0, MAX_SUBJECT)}\n\n${body.slice(0, MAX_VISIBLE)}`, "");
  const visible = visibleParts.slice(0, MAX_PARTS - hiddenKept.length);
  const complete =
    subject.length <= MAX_SUBJECT &&
    body.length <= MAX_VISIBLE &&
    hidden.length <= MAX_HIDDEN &&
    visible.length === visibleParts.length &&
    hiddenKept.length === hiddenParts.length;
  const whole = new Set<string>();
  const fill = (parts: Set<string>[], cap: number) => {
    let added = 0;
    for (const part of parts)
      for (const t of part) {
        if (added >= cap) return;
        if (!whole.has(t)) whole.add(t), added++;
      }
  };
  fill(visible, MAX_WHOLE_TOKENS);
  fill(hiddenParts, MAX_HIDDEN_TOKENS);
  return { whole, parts: [...visible, ...hiddenKept], complete };
}

/** The whole message's tokens (what the trainer fits on). */
export function documentTokens(subject: string, body: string, hidden: string): Set<string> {
  return documentView(subject, body, hidden).whole;
}

/**
 * The token sets of the merged paragraphs first (the whole text in order), then of each paragraph
 * that is not a part already, then of each line of a paragraph of several lines. Each line is read
 * once; a paragraph is the union of its lines' tokens and a merged part the union of its
 * paragraphs' (tokens never span lines).
 */
function parts(text: string, prefix: string): Set<string>[] {
  const paragraphs = text.split(/\n\s*\n/).filter((p) => p.trim() !== "");
  const lines = paragraphs.map((p) =>
    p
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => tokens(line, prefix, MAX_PART_TOKENS)),
  );
  const read = lines.map((each) => (each.length === 1 ? each[0]! : union(each)));
  const runs = mergedRuns(paragraphs);
  const merged = runs.map((run) => (run.length === 1 ? read[run[0]!]! : union(run.map((i) => read[i]!))));
  const single = new Set(runs.filter((run) => run.length === 1).map((run) => run[0]!));
  return [...merged, ...read.filter((_, i) => !single.has(i)), ...lines.flatMap((each) => (each.length > 1 ? each : []))];
}

/** Runs of paragraph indexes merged until each has over PART_MIN_WORDS pieces; a short tail joins the last. */
function mergedRuns(paragraphs: string[]): number[][] {
  const pieces = (p: string) => p.split(/\s+/, PART_MIN_WORDS + 1).filter(Boolean).length;
  const runs: number[][] = [];
  let current: number[] = [];
  let count = 0;
  paragraphs.forEach((p, i) => {
    current.push(i);
    count += pieces(p);
    if (count > PART_MIN_WORDS) runs.push(current), (current = []), (count = 0);
  });
  if (current.length > 0) {
    if (runs.length > 0 && count <= PART_MIN_WORDS / 2) runs[runs.length - 1]!.push(...current);
    else runs.push(current);
  }
  return runs;
}

function union(sets: Set<string>[]): Set<string> {
  const out = new Set<string>();
  for (const set of sets) for (const t of set) if (out.size < MAX_PART_TOKENS) out.add(t);
  return out;
}

function tokens(text: string, prefix: string, cap: number): Set<string> {
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    const where = /^\s*>/.test(line) ? `${prefix}q` : prefix;
    const words = wordsOf(line);
    for (let i = 0; i < words.length && out.size < cap; i++) {
      const w = words[i]!;
      if (UNSPACED.test(w)) {
        for (const run of w.matchAll(UNSPACED_RUN)) {
          const chars = [...run[0]];
          for (let k = 0; k + 1 < chars.length && out.size < cap; k++) out.add(`${where}c:${chars[k]}${chars[k + 1]}`);
        }
        continue;
      }
      if (w.length > MAX_WORD) continue;
      out.add(`${where}w:${w}`);
      const next = words[i + 1];
      if (next !== undefined && next.length <= MAX_WORD && !UNSPACED.test(next)) out.add(`${where}b:${w}_${next}`);
    }
  }
  return out;
}

// Split on whitespace, trimmed of punctuation at both ends (by a scan, not a regular expression,
// which backtracks on long runs of punctuation), case folded; words of one letter are left out,
// and runs longer than a word (encoded payloads, keys) are left to the rules that decode them,
// unless written in a script without spaces, whose character pairs are read.
function wordsOf(line: string): string[] {
  const out: string[] = [];
  for (const piece of line.split(/\s+/)) {
    let a = 0;
    let b = piece.length;
    while (a < b && !LETTER_OR_DIGIT.test(piece[a]!)) a++;
    while (b > a && !LETTER_OR_DIGIT.test(piece[b - 1]!)) b--;
    if (b - a >= 2) out.push(piece.slice(a, b).toLowerCase());
  }
  return out;
}

export function documentLogit(model: Pick<DocumentModel, "bias" | "weights">, tokens: Iterable<string>): number {
  let z = model.bias;
  for (const t of tokens) z += model.weights.get(t) ?? 0;
  return z;
}

/**
 * The message's logit for the stack. It raises a verdict by the whole message's logit, as trained;
 * it lowers one only as far as its most attack-like part allows (paragraphs, hidden text), and not
 * at all if any part leans to an attack: padding an attack with ordinary mail, whose words lean the
 * other way, cannot clear it, and an ordinary mail's one odd paragraph cannot raise it.
 */
export function viewLogit(model: Pick<DocumentModel, "bias" | "weights">, view: DocumentView): number {
  const whole = documentLogit(model, view.whole);
  if (whole >= 0) return whole;
  if (!view.complete) return 0;
  let most = whole;
  for (const part of view.parts) most = Math.max(most, documentLogit(model, part));
  return Math.min(0, most);
}

/**
 * Verdicts the stage leaves to the rules: business-email fraud written to a person (visible
 * fraud_ signals), which its authors' look-alikes do not tell apart (people asking people to pay),
 * and payloads it cannot read (Unicode tags and other invisible characters, of which sanitization
 * keeps only counts). Fraud hidden from the person is the stage's to read like any attack.
 */
export function leftToRules(signals: readonly { name: string }[]): boolean {
  return signals.some((s) => s.name.startsWith("fraud_") || s.name.startsWith("invisible_"));
}

const logit = (p: number) => {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, p));
  return Math.log(q / (1 - q));
};

/** The stacked value of a message whose rules and learned stage combined to `combined`. */
export function stacked(stack: Stack, docLogit: number, combined: number): number {
  if (combined >= stack.sure) return Math.max(stack.cut, stack.k * logit(combined));
  const say = docLogit < 0 ? Math.max(-stack.down, docLogit) : Math.min(stack.up, Math.max(0, docLogit - stack.margin));
  return say + stack.k * logit(combined);
}

/**
 * The stacked verdict as a score on the combiner's scale: at or over `threshold` exactly when
 * the stack flags, so stored scores and thresholds keep their meaning.
 */
export function stackedScore(stack: Stack, docLogit: number, combined: number, threshold: number): number {
  const z = stacked(stack, docLogit, combined) - stack.cut + logit(threshold);
  return 1 / (1 + Math.exp(-z));
}
