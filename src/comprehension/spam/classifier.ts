// Our own content spam verdict, trained offline by scripts/train-spam.ts and shipped as
// model.json beside this file. The model is logistic regression over presence tokens
// (features.ts, modern.ts): words, five-letter stems, character bigrams of scripts written
// without spaces, header facts, link hosts and their shape, link text versus target, cue
// families (payment, urgency, credentials, threat, prize) and obfuscation. Weights are fitted,
// not set by hand; the threshold is chosen on validation ham (at most 1% flagged).
// Scoring is a parse plus a lookup per token: a few milliseconds for typical mail.
//
// Public surface other modules build on (per-account learning adds to the global logit):
//   classifySpam(raw, model?, context?) -> { spam, score, logit, reasons }
//   spamProbability(model, tokens)      -> the probability for a token set already extracted

import { readFile } from "node:fs/promises";
import { type SpamContext, type SpamFeatureOptions, spamFeatures } from "./features.ts";

export const MODEL_FORMAT = "agent-mailbox/spam-logreg/1";

export type SpamModelFile = {
  format: typeof MODEL_FORMAT;
  trained_on: string[];
  messages: Record<string, number>;
  threshold: number;
  bias: number;
  validation: Record<string, number | string>;
  // The training options, for the record (not read when scoring).
  options?: Record<string, unknown>;
  // Optional token kinds the model was trained with; absent in files written before them.
  features?: SpamFeatureOptions;
  weights: Record<string, number>;
};

export type SpamModel = { threshold: number; bias: number; weights: Map<string, number>; features?: SpamFeatureOptions };

// score: the model's probability of spam, 0..1. `spam` is score >= the model's own threshold
// (chosen for at most 1% of validation ham flagged); screening compares the score with
// SPAM_CLASSIFIER_THRESHOLD when that is set, else with the model's threshold.
// logit: the raw sum, for callers that add their own evidence (per-account statistics).
// reasons: the tokens that pushed the score up most, in words, strongest first.
export type SpamVerdict = { spam: boolean; score: number; logit: number; reasons: string[] };

const DEFAULT_MODEL_URL = new URL("./model.json", import.meta.url);

let defaultModel: Promise<SpamModel> | undefined;

// With no path, the shipped model, read once per process; a failed read is retried next call.
export function loadSpamModel(path?: string | URL): Promise<SpamModel> {
  if (path !== undefined) return readModel(path);
  defaultModel ??= readModel(DEFAULT_MODEL_URL).catch((err: unknown) => {
    defaultModel = undefined;
    throw err;
  });
  return defaultModel;
}

async function readModel(path: string | URL): Promise<SpamModel> {
  const file = JSON.parse(await readFile(path, "utf8")) as SpamModelFile;
  if (file.format !== MODEL_FORMAT || typeof file.threshold !== "number" || typeof file.weights !== "object") {
    throw new Error(`spam model ${String(path)}: not a ${MODEL_FORMAT} file`);
  }
  return { threshold: file.threshold, bias: file.bias, weights: new Map(Object.entries(file.weights)), features: file.features ?? {} };
}

// Throws when the message cannot be parsed or the model cannot be read; the caller records
// that as a classifier error rather than guessing.
export async function classifySpam(raw: Uint8Array | string, model?: SpamModel, context?: SpamContext): Promise<SpamVerdict> {
  const m = model ?? (await loadSpamModel());
  const tokens = await spamFeatures(raw, context, m.features);
  const logit = spamLogit(m, tokens);
  const score = sigmoid(logit);
  return { spam: score >= m.threshold, score: round(score), logit: round(logit), reasons: spamReasons(m, tokens) };
}

export function spamLogit(model: Pick<SpamModel, "bias" | "weights">, tokens: Iterable<string>): number {
  let z = model.bias;
  for (const t of tokens) z += model.weights.get(t) ?? 0;
  return z;
}

export function spamProbability(model: Pick<SpamModel, "bias" | "weights">, tokens: Iterable<string>): number {
  return sigmoid(spamLogit(model, tokens));
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

const REASONS_SHOWN = 5;
const REASON_MIN_WEIGHT = 0.3;

/** The strongest spam-leaning tokens of a message, described for a human. */
export function spamReasons(model: Pick<SpamModel, "weights">, tokens: Iterable<string>): string[] {
  const top: { t: string; w: number }[] = [];
  for (const t of tokens) {
    const w = model.weights.get(t) ?? 0;
    if (w >= REASON_MIN_WEIGHT) top.push({ t, w });
  }
  top.sort((a, b) => b.w - a.w || a.t.localeCompare(b.t));
  return top.slice(0, REASONS_SHOWN).map(({ t }) => describeToken(t));
}

const NAMED: Record<string, string> = {
  "url:brand-elsewhere": "a link names a well-known brand on someone else's domain",
  "fromhost:brand-elsewhere": "the sender's domain names a well-known brand it does not belong to",
  "from:brand-elsewhere": "the sender's name claims a brand its address does not belong to",
  "url:embedded-domain": "a link hides a familiar domain inside another one",
  "fromhost:embedded-domain": "the sender's domain hides a familiar domain inside another one",
  "url:hyphen-security-word": "a link goes to a hyphenated 'secure/verify/account' style domain",
  "fromhost:hyphen-security-word": "the sender's domain is a hyphenated 'secure/verify/account' style name",
  "link:text-other-host": "a link's text shows one address and goes to another",
  "link:action-text": "a 'click here / verify / pay now' style link",
  "url:risky-tld": "links to a top-level domain much abused by spam",
  "fromhost:risky-tld": "sent from a top-level domain much abused by spam",
  "url:shortener": "a shortened link hides its destination",
  "url:none-from-domain": "no link goes to the sender's own domain",
  "from:freemail": "a free-mail sender",
  "replyto:freemail": "replies go to a free-mail address",
  "html:image-heavy": "mostly an image, few words",
  "html:images-few-words": "several images and few words",
  "obf:mixed-script": "words mix letters of different alphabets (look-alike characters)",
  "obf:spaced-letters": "words written with spaced-out letters",
  "obf:math-letters": "letters written with mathematical symbols",
  "obf:digit-in-word": "digits standing in for letters",
};

function describeToken(t: string): string {
  if (NAMED[t]) return NAMED[t];
  if (t.startsWith("obf:zero-width")) return "invisible zero-width characters inside words";
  if (t.startsWith("cue:") && !t.includes(":n:")) return `${t.slice(4).replace("+", " and ")} wording`;
  if (t.startsWith("s:")) return `subject word "${t.slice(2)}"`;
  if (t.startsWith("st:")) return `words starting "${t.slice(3)}"`;
  if (t.startsWith("c2:")) return `text "${t.slice(3)}"`;
  if (t.startsWith("url:")) return `link to ${t.slice(4)}`;
  if (t.startsWith("from:d:")) return `sender domain ${t.slice(7)}`;
  if (t.startsWith("from:n:")) return `sender name word "${t.slice(7)}"`;
  if (t.includes(":")) return `message trait ${t}`;
  return `word "${t}"`;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
