// How the signals become one verdict: a logistic regression whose weights and threshold are
// FITTED (scripts/fit-injection.ts) and live in combiner.json beside this file, as SpamAssassin
// fits its scores apart from its rules.
//
// Each signal enters as its noisy-OR evidence, e = -ln(1 - min(cap, strength)): the strength is
// what the rule gives it (weights.json), and e adds up the way the old noisy-OR multiplied. A
// signal's variants (hidden_x, encoded_x) add to their base name's evidence, and all hidden or
// encoded evidence also feeds an "origin:" feature of its own, so the fit can say how much more
// hidden placement weighs. The fit starts from, and its L2 penalty pulls toward, the noisy-OR at
// 0.5 (every weight `prior`, bias -prior × ln 2): a signal the training mail never shows keeps the
// meaning its rule gave it.
//
// score = (σ(z) − σ(bias)) / (1 − σ(bias)), z = bias + Σ weight × evidence: the fitted probability
// above that of mail where nothing fired, so mail without a signal scores exactly 0.

import { readFileSync } from "node:fs";

export type Combiner = {
  method: string;
  /** weight of a signal the fit has no entry for (the noisy-OR slope) */
  prior: number;
  bias: number;
  /** base signal name or "origin:hidden" / "origin:encoded" -> weight */
  weights: Record<string, number>;
  threshold: number;
};

const CAP = 0.95;

export const COMBINER: Combiner = JSON.parse(readFileSync(new URL("./combiner.json", import.meta.url), "utf8")) as Combiner;

/** The noisy-OR at 0.5 written as a combiner: what the fit starts from and is pulled toward. */
export function noisyOrCombiner(prior = COMBINER.prior): Combiner {
  const bias = -prior * Math.LN2;
  const base = sigmoid(bias);
  return { method: "noisy-OR prior", prior, bias, weights: {}, threshold: (0.5 - base) / (1 - base) };
}

export const baseName = (name: string) => name.replace(/^(hidden|encoded)_/, "");

/** Feature name -> evidence, for signals given by name and strength. */
export function evidence(signals: readonly { name: string; weight: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  const add = (k: string, e: number) => out.set(k, (out.get(k) ?? 0) + e);
  for (const s of signals) {
    if (!(s.weight > 0)) continue;
    const e = -Math.log(1 - Math.min(CAP, s.weight));
    add(baseName(s.name), e);
    if (s.name.startsWith("hidden_")) add("origin:hidden", e);
    if (s.name.startsWith("encoded_")) add("origin:encoded", e);
  }
  return out;
}

export function weightOf(feature: string, c: Combiner): number {
  return c.weights[feature] ?? (feature.startsWith("origin:") ? 0 : c.prior);
}

export function combinedScore(features: Map<string, number>, c: Combiner = COMBINER): number {
  if (features.size === 0) return 0;
  let z = c.bias;
  for (const [k, e] of features) z += weightOf(k, c) * e;
  const base = sigmoid(c.bias);
  return Math.max(0, (sigmoid(z) - base) / (1 - base));
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}
