// Prompt-injection risk of an inbound message an LLM agent is about to read.
//
// Signals come from three places: the structure of the text (role markers, transcripts,
// function-call JSON, data-carrying URLs, invisible-character counts from sanitization),
// semantic families built from word classes (override of prior rules, persona reassignment,
// addressing an AI reader, exfiltration and tool requests, secrecy), and encoded or disguised
// copies of the text (base64, hex, percent-encoding, rot13, look-alike letters, leetspeak,
// spaced-out letters), decoded and scanned again. Hidden text (removed by sanitization) is
// scanned too and its hits weigh more (weights.ts, context.timesHidden).
//
// Score: noisy-OR over the strongest signal of each name, 1 - Π(1 - w). A single family hit
// stays under the threshold unless it is unambiguous ("ignore all previous instructions",
// chat-template tokens, a markdown image carrying a data placeholder, a Unicode-tag payload);
// what pushes ordinary words over is context: addressing an AI reader, hidden placement,
// secrecy, credentials or an outside address as the target.
//
// Business-email fraud written as to a person (injection/fraud.ts) names no AI reader; what
// marks it is structure: money or something sensitive, pressure (secrecy, a check skipped, the
// sender out of reach), an outside channel, urgency and threats, bank details to pay into, in mail
// that names no usual process.
//
// A second stage (injection/combine.ts) adds signals for pieces that mean little alone but
// describe an attack together: a reader named in the third person followed by an order, rules
// set aside followed by an action on the human's data, and template slots named after mailbox
// data ("body={{all_unread_messages}}").
//
// A learned stage (injection/model.ts) reads what the word families miss: logistic regression
// over words, word pairs, five-letter stems and the rule signals, on windows of three sentences,
// trained by scripts/train-injection.ts on a written corpus of attacks and benign look-alikes,
// the labelled holdouts, and real spam and package docs as benign. Words inside quotes, code or
// "> " reply lines are features of their own (q:word), so an attack quoted in a newsletter is
// not read as one addressed to the reader. It adds one signal, "learned_model", weighted
// p^sharpen (model.json): alone it flags only a confident window, beside a weak rule hit it
// tips the score.
//
// The threshold was set on test/fixtures/injection/{malicious,benign}.json; the rules' weights
// live in weights.ts, the learned stage's in model.json. What they score on every fixture set
// (and, with --loo, on each holdout by a model trained without it; with --ham, on real ham) is
// printed by `npx bun scripts/eval-injection.ts`, not quoted here, so no comment can go stale.

import { type InjectionModel, modelVerdict, shippedModel } from "./model.ts";
import { type Signal, scanText } from "./scan.ts";
import { FITTED, type FittedWeights, signalScale, WEIGHTS as W } from "./weights.ts";

/** Fitted by scripts/fit-injection.ts (weights.json "fitted"), with the signal scales. */
export const INJECTION_THRESHOLD = FITTED.threshold;
// A scaled signal stays below certainty, so no single one makes the product zero.
const SCALED_CAP = 0.95;

export type InjectionInput = { subject: string; bodyClean: string; hiddenText: string; report: Record<string, number> };
export type InjectionSignal = { name: string; weight: number; evidence: string };
export type InjectionRisk = { score: number; risky: boolean; threshold: number; signals: InjectionSignal[] };

/**
 * `model`: the learned stage; the shipped one by default, null for the rules alone.
 * `fitted`: signal scales and threshold; the shipped fit by default (the fitting script passes
 * an empty one to read the signals as the rules give them).
 */
export function scoreInjectionRisk(
  input: InjectionInput,
  model: InjectionModel | null = shippedModel(),
  fitted: FittedWeights = FITTED,
): InjectionRisk {
  const found: Signal[] = [];
  const subject = input.subject ?? "";
  const body = input.bodyClean ?? "";
  const text = subject === "" ? body : `${subject}\n\n${body}`;
  scanText(text, "body", found);
  scanText(input.hiddenText ?? "", "hidden", found);
  found.push(...invisibleSignals(input.report ?? {}));

  const rules = strongestByName(found);
  // The model reads the rule signals exactly as the trainer saw them: one per name, rounded.
  const learned = model === null ? [] : strongestByName(learnedSignal(model, text, input.hiddenText ?? "", rules));
  const signals = [...rules, ...learned]
    .map((s) => {
      const scale = signalScale(s.name, fitted);
      return scale === 1 ? s : { ...s, weight: round(Math.min(SCALED_CAP, s.weight * scale)) };
    })
    .filter((s) => s.weight >= 0.01)
    .sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
  let keep = 1;
  for (const s of signals) keep *= 1 - s.weight;
  const score = round(1 - keep);
  return { score, risky: score >= fitted.threshold, threshold: fitted.threshold, signals };
}

function strongestByName(found: Signal[]): InjectionSignal[] {
  const strongest = new Map<string, Signal>();
  for (const s of found) {
    if (s.weight < 0.01) continue;
    const seen = strongest.get(s.name);
    if (seen === undefined || s.weight > seen.weight) strongest.set(s.name, s);
  }
  return [...strongest.values()]
    .map((s) => ({ name: s.name, weight: round(s.weight), evidence: s.evidence }))
    .sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
}

// The model sees the rule signals as features, so its probability already accounts for them.
// It joins the noisy-OR as one more signal, sharpened (p^4, the exponent in the model file)
// because some windows of real mail still reach p 0.7: alone it flags only when confident,
// beside a rule hit it tips the balance. Under the floor it is left out, so ordinary mail
// carries no trail of it.
function learnedSignal(model: InjectionModel, text: string, hidden: string, rules: Signal[]): Signal[] {
  const verdict = modelVerdict(model, text, hidden, rules);
  if (verdict === null) return [];
  const weight = Math.min(0.95, verdict.p ** model.sharpen);
  if (weight < model.floor) return [];
  return [{ name: "learned_model", weight, evidence: `p ${verdict.p.toFixed(2)} ${verdict.evidence}`.slice(0, 120) }];
}

// Sanitization removed these characters and kept only counts. Unicode tags outside flag
// emoji (which sanitization keeps) and long runs of other invisibles encode text a human
// cannot see; zero-width and bidi characters are common in ordinary marketing and RTL mail.
function invisibleSignals(report: Record<string, number>): Signal[] {
  const n = (key: string) => (Number.isFinite(report[key]) ? report[key] : 0);
  const out: Signal[] = [];
  const tags = n("unicode_tags");
  if (tags > 0)
    out.push({
      name: "invisible_tags",
      weight: tags >= 16 ? W.invisible.tagsMany : tags >= 4 ? W.invisible.tagsSome : W.invisible.tagsFew,
      evidence: `${tags} invisible Unicode tag characters removed (hidden ASCII text)`,
    });
  const other = n("other_invisible");
  if (other >= 4)
    out.push({
      name: "invisible_payload",
      weight: other >= 64 ? W.invisible.otherMany : other >= 16 ? W.invisible.otherSome : W.invisible.otherFew,
      evidence: `${other} other invisible characters removed (variation selectors, controls, private use)`,
    });
  const zw = n("zero_width_chars");
  if (zw >= 20) out.push({ name: "zero_width", weight: W.invisible.zeroWidth, evidence: `${zw} zero-width characters removed` });
  const bidi = n("bidi_controls");
  if (bidi >= 4)
    out.push({ name: "bidi_controls", weight: W.invisible.bidi, evidence: `${bidi} bidirectional control characters removed` });
  return out;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
