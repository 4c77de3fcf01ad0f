// Our own content spam verdict, trained offline by scripts/train-spam.ts and shipped as
// model.json beside this file. The model is per-token spam probabilities combined with
// Robinson's chi-square method (as in SpamBayes): it needs many strongly spammy tokens and few
// hammy ones to say spam, so mail unlike anything in training lands near 0.5, not at 1.
// Scoring is a parse plus a lookup per token: about a millisecond for typical mail.

import { readFile } from "node:fs/promises";
import { spamFeatures, type SpamContext } from "./features.ts";

export const MODEL_FORMAT = "agent-mailbox/spam-chi2/1";

export type SpamModelFile = {
  format: typeof MODEL_FORMAT;
  trained_on: string[];
  messages: { ham: number; spam: number };
  threshold: number;
  min_strength: number; // tokens whose probability is closer to 0.5 than this are ignored
  max_tokens: number; // only the most decisive tokens of a message are combined
  validation: Record<string, number | string>;
  probabilities: Record<string, number>; // token -> P(spam | token), smoothed
};

export type SpamModel = {
  threshold: number;
  minStrength: number;
  maxTokens: number;
  probabilities: Map<string, number>;
};

// score: 0 (ham) to 1 (spam), 0.5 meaning no evidence either way. It ranks, it is not a
// calibrated probability. `spam` is score >= the model's own threshold (what the evaluation
// reports); screening ignores it and compares the score with SPAM_CLASSIFIER_THRESHOLD.
export type SpamVerdict = { spam: boolean; score: number };

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
  if (file.format !== MODEL_FORMAT || typeof file.threshold !== "number" || typeof file.probabilities !== "object") {
    throw new Error(`spam model ${String(path)}: not a ${MODEL_FORMAT} file`);
  }
  return {
    threshold: file.threshold,
    minStrength: file.min_strength,
    maxTokens: file.max_tokens,
    probabilities: new Map(Object.entries(file.probabilities)),
  };
}

// Throws when the message cannot be parsed or the model cannot be read; the caller records
// that as a classifier error rather than guessing.
export async function classifySpam(raw: Uint8Array | string, model?: SpamModel, context?: SpamContext): Promise<SpamVerdict> {
  const [m, tokens] = await Promise.all([model ?? loadSpamModel(), spamFeatures(raw, context)]);
  const score = spamScore(m, tokens);
  return { spam: score >= m.threshold, score };
}

// Robinson's combination: how unlikely the token probabilities are under "all these tokens
// are hammy" versus "all are spammy", each a chi-square test, folded into one 0..1 score.
export function spamScore(model: Omit<SpamModel, "threshold">, tokens: Iterable<string>): number {
  const decisive: number[] = [];
  for (const token of tokens) {
    const p = model.probabilities.get(token);
    if (p !== undefined && Math.abs(p - 0.5) >= model.minStrength) decisive.push(p);
  }
  if (decisive.length === 0) return 0.5;
  decisive.sort((a, b) => Math.abs(b - 0.5) - Math.abs(a - 0.5));
  const used = decisive.slice(0, model.maxTokens);
  let sumLogP = 0;
  let sumLogNotP = 0;
  for (const p of used) {
    sumLogP += Math.log(p);
    sumLogNotP += Math.log(1 - p);
  }
  const spamminess = 1 - chiSquareSurvival(-2 * sumLogNotP, 2 * used.length);
  const hamminess = 1 - chiSquareSurvival(-2 * sumLogP, 2 * used.length);
  return (1 + spamminess - hamminess) / 2;
}

// P(X >= x) for a chi-square with even degrees of freedom: a finite Poisson sum, done in log
// space because hundreds of decisive tokens push e^-m below the smallest double.
function chiSquareSurvival(x: number, degrees: number): number {
  const m = x / 2;
  if (m <= 0) return 1;
  const logM = Math.log(m);
  let logTerm = -m;
  let logSum = logTerm;
  for (let i = 1; i < degrees / 2; i++) {
    logTerm += logM - Math.log(i);
    const hi = Math.max(logSum, logTerm);
    logSum = hi + Math.log(Math.exp(logSum - hi) + Math.exp(logTerm - hi));
  }
  return Math.min(1, Math.exp(logSum));
}
