// The document stage of the injection detector: a second opinion read off the whole message,
// stacked on the combined score of the rules and the learned stage.
//
// Why: on mail by authors the detector never saw, most false alarms were one strong signal (a
// role marker in a bug report, a learned-stage window of a note about an inbox assistant) in mail
// that, read as a whole, is plainly a report, a policy or a developer's question. A logistic
// regression over the message's words and word pairs, trained on independent authors' attacks and
// hard look-alikes (scripts/train-injection-document.ts), tells those apart better than any one
// window can; alone it misses attacks buried in long benign mail, so it never flags on its own.
//
// stacked z = clip(document logit, -down, +up) + k × logit(combined score); flagged when z ≥ cut.
// Its say is bounded, more tightly upwards: it is there to let go of look-alikes, and a short
// message gives it few words to go on. k, the bounds and cut are chosen leave-one-author-out
// (docs/judgement.md, change 11). Mail where no signal fired is never read by this stage: its
// combined score is 0 and stays 0.

import { readFileSync } from "node:fs";

export const DOCUMENT_FORMAT = "injection-document-logreg-v1";

export type Stack = { k: number; up: number; down: number; margin: number; cut: number };
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
    ![s?.k, s?.up, s?.down, s?.margin, s?.cut].every((x) => typeof x === "number")
  ) {
    throw new Error(`injection document model: not a ${DOCUMENT_FORMAT} file`);
  }
  return { bias: file.bias, weights: new Map(Object.entries(file.weights)), stack: s };
}

// Bounds: the first 50,000 characters of the visible text and 10,000 of the hidden text are
// read, at most 6,000 distinct tokens; a long newsletter is judged by its opening as a reader is.
const MAX_VISIBLE = 50_000;
const MAX_HIDDEN = 10_000;
const MAX_TOKENS = 6_000;
const MAX_WORD = 30;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

/**
 * Presence tokens of a message: words ("w:"), word pairs ("b:"), character pairs of scripts
 * written without spaces ("c:"); words on "> " reply lines carry "q" and hidden text "h" in front,
 * so an attack quoted in a newsletter and one hidden from the human are features of their own.
 */
export function documentTokens(subject: string, body: string, hidden: string): Set<string> {
  const out = new Set<string>();
  const add = (text: string, prefix: string) => {
    for (const line of text.split("\n")) {
      const where = /^\s*>/.test(line) ? `${prefix}q` : prefix;
      const words = wordsOf(line);
      for (let i = 0; i < words.length && out.size < MAX_TOKENS; i++) {
        const w = words[i]!;
        if (UNSPACED.test(w)) {
          const chars = [...w];
          for (let k = 0; k + 1 < chars.length; k++) out.add(`${where}c:${chars[k]}${chars[k + 1]}`);
          continue;
        }
        out.add(`${where}w:${w}`);
        if (i + 1 < words.length) out.add(`${where}b:${w}_${words[i + 1]}`);
      }
    }
  };
  add(`${subject}\n${body.slice(0, MAX_VISIBLE)}`, "");
  add(hidden.slice(0, MAX_HIDDEN), "h");
  return out;
}

// Split on whitespace, trimmed of punctuation, case folded; words of one letter and runs longer
// than a word (encoded payloads, keys) are left to the rules that decode them.
function wordsOf(line: string): string[] {
  const out: string[] = [];
  for (const piece of line.split(/\s+/)) {
    const w = piece.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").toLowerCase();
    if (w.length >= 2 && w.length <= MAX_WORD) out.push(w);
  }
  return out;
}

export function documentLogit(model: Pick<DocumentModel, "bias" | "weights">, tokens: Iterable<string>): number {
  let z = model.bias;
  for (const t of tokens) z += model.weights.get(t) ?? 0;
  return z;
}

const logit = (p: number) => {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, p));
  return Math.log(q / (1 - q));
};

/** The stacked value of a message whose rules and learned stage combined to `combined`. */
export function stacked(stack: Stack, docLogit: number, combined: number): number {
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
