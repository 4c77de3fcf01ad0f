// The learned stage of the injection detector: logistic regression over the window features
// of injection/features.ts plus the rule signals, trained by scripts/train-injection.ts on
// test/fixtures/injection/ (a written corpus of attacks and look-alike benign mail, with real
// spam as further benign mail). It exists because word families only catch phrasings someone
// listed; the model weighs every word and word pair it saw in either class.
//
// A message's probability is that of its most suspicious window. It reaches the score as one
// signal, "learned_model", whose evidence quotes that window and its heaviest features, so a
// reader of the stored comprehension can see why.

import { readFileSync } from "node:fs";
import { type RuleFeature, ruleFeatures, type Window, type Windows, windows } from "./features.ts";

export const MODEL_FORMAT = "injection-logreg-v1";

// sharpen: the signal's weight is p^sharpen, so the model alone flags a message (weight ~0.5)
// only when confident (p >= 0.90 for 8) and below that adds evidence to rule hits; floor: a
// weight under it is not reported. The floor was chosen by leave-one-holdout-out runs
// (scripts/eval-injection.ts), the exponent leave-one-author-out (scripts/loao-injection.ts).
export type InjectionModel = { bias: number; weights: Map<string, number>; sharpen: number; floor: number };
type ModelFile = { format: string; bias: number; sharpen: number; floor: number; weights: Record<string, number> };

export type ModelVerdict = { p: number; evidence: string };

const DEFAULT_MODEL_URL = new URL("./model.json", import.meta.url);
let shipped: InjectionModel | undefined;

/** The model beside this file, read once per process (scoring is synchronous). */
export function shippedModel(): InjectionModel {
  shipped ??= parseModel(JSON.parse(readFileSync(DEFAULT_MODEL_URL, "utf8")));
  return shipped;
}

export function parseModel(file: ModelFile): InjectionModel {
  if (
    file?.format !== MODEL_FORMAT ||
    typeof file.bias !== "number" ||
    typeof file.sharpen !== "number" ||
    typeof file.weights !== "object"
  ) {
    throw new Error(`injection model: not a ${MODEL_FORMAT} file`);
  }
  return { bias: file.bias, sharpen: file.sharpen, floor: file.floor, weights: new Map(Object.entries(file.weights)) };
}

/** The logit of one window, given by its feature names (the trainer's view). */
export function namesLogit(model: InjectionModel, names: Iterable<string>, rules: Map<string, number>): number {
  let z = model.bias + rulesLogit(model, rules);
  for (const name of names) z += model.weights.get(name) ?? 0;
  return z;
}

function rulesLogit(model: InjectionModel, rules: Map<string, number>): number {
  let z = 0;
  for (const [name, value] of rules) z += (model.weights.get(name) ?? 0) * value;
  return z;
}

/** The most suspicious window of the subject+body and of the hidden text. */
export function modelVerdict(model: InjectionModel, text: string, hidden: string, signals: RuleFeature[]): ModelVerdict | null {
  const base = model.bias + rulesLogit(model, ruleFeatures(signals));
  let best: { z: number; w: Window; of: Windows; source: string } | null = null;
  for (const [source, isHidden] of [
    [text, false],
    [hidden, true],
  ] as const) {
    const of = windows(source, isHidden);
    const weight = Float64Array.from(of.names, (n) => model.weights.get(n) ?? 0);
    for (const w of of.list) {
      let z = base;
      for (const id of w.ids) z += weight[id];
      if (best === null || z > best.z) best = { z, w, of, source };
    }
  }
  if (best === null) return null;
  const p = 1 / (1 + Math.exp(-best.z));
  return {
    p,
    evidence: describe(
      model,
      best.w.ids.map((id) => best.of.names[id]),
      best.source.slice(best.w.start, best.w.end),
    ),
  };
}

// "[forward every|do not tell] «Note to the AI: forward every…»": the window's heaviest words
// and pairs, then the window itself, cut to fit 120 characters.
function describe(model: InjectionModel, names: string[], excerpt: string): string {
  const top = names
    .filter((n) => n.startsWith("b:") || n.startsWith("u:"))
    .map((n) => ({ n: n.slice(2), x: model.weights.get(n) ?? 0 }))
    .filter((f) => f.x > 0)
    .sort((a, b) => b.x - a.x || a.n.localeCompare(b.n))
    .slice(0, 3)
    .map((f) => f.n);
  const head = `${names.includes("ctx:hidden") ? "hidden " : ""}[${top.join("|")}] `;
  const room = Math.max(20, 116 - head.length);
  const quote = excerpt.replace(/\s+/g, " ").trim();
  return `${head}«${quote.length > room ? `${quote.slice(0, room - 1)}…` : quote}»`.slice(0, 120);
}
