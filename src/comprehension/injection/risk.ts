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
// Combined score: a fitted logistic regression over the strongest signal of each name, each
// entering as its noisy-OR evidence -ln(1 - w) (combiner.ts); the score reported is the document
// stage's reading of it (below). A single family hit stays under the threshold unless it is
// unambiguous ("ignore all previous instructions",
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
// How the signals combine into the score, and the threshold, are fitted (combiner.ts,
// combiner.json, by scripts/fit-injection.ts); the rules' strengths live in weights.json, the
// learned stage's weights in model.json.
//
// A document stage (injection/document.ts) reads the whole message once more when any signal
// fired, and its opinion is stacked on the combined score: a report, a policy or a developer's
// question that one rule or window took for an attack is let go, an attack whose signals were
// weak is tipped over. It reports itself as the signal "document_model".
//
// What they score on every fixture set is printed by `npx bun scripts/eval-injection.ts` and
// `bun run eval`, not quoted here, so no comment can go stale.

import { COMBINER, type Combiner, combinedScore, evidence } from "./combiner.ts";
import { type DocumentModel, documentView, leftToRules, shippedDocumentModel, stackedScore, viewLogit } from "./document.ts";
import { type InjectionModel, modelVerdict, shippedModel } from "./model.ts";
import { type Signal, scanText } from "./scan.ts";
import { CUTOFFS, WEIGHTS as W } from "./weights.ts";

/** Fitted by scripts/fit-injection.ts (combiner.json). */
export const INJECTION_THRESHOLD = COMBINER.threshold;

export type InjectionInput = { subject: string; bodyClean: string; hiddenText: string; report: Record<string, number> };
export type InjectionSignal = { name: string; weight: number; evidence: string };
export type InjectionRisk = { score: number; risky: boolean; threshold: number; signals: InjectionSignal[] };

/**
 * `model`: the learned stage; the shipped one by default, null for the rules alone.
 * `combiner`: fitted weights and threshold; the shipped fit by default.
 * `document`: the document stage stacked on the combined score (off with the learned stage, so
 * `model` null is the rules alone); null for the combined score, what the combiner is fitted on.
 */
export function scoreInjectionRisk(
  input: InjectionInput,
  model: InjectionModel | null = shippedModel(),
  combiner: Combiner = COMBINER,
  document: DocumentModel | null = model === null ? null : shippedDocumentModel(),
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
  const signals = [...rules, ...learned].filter((s) => s.weight >= CUTOFFS.risk.signalFloor).sort(byWeight);
  const combined = round(combinedScore(evidence(signals), combiner));
  if (document === null || combined === 0 || leftToRules(signals)) return verdict(combined, combiner.threshold, signals);
  const docLogit = viewLogit(document, documentView(subject, body, input.hiddenText ?? ""));
  const exact = stackedScore(document.stack, docLogit, combined, combiner.threshold);
  const p = 1 / (1 + Math.exp(-docLogit));
  const read = {
    name: "document_model",
    weight: round(p),
    evidence: `p ${p.toFixed(2)}: the message read whole ${p >= 0.5 ? "leans to an attack" : "leans to ordinary mail"}; signals alone scored ${combined}`,
  };
  // Risky by the exact stack (as the trainer judges it); a score rounded up to the threshold from
  // just under it is reported one step under, so score and verdict never disagree.
  const risky = exact >= combiner.threshold;
  const score = risky ? round(exact) : Math.min(round(exact), stepUnder(combiner.threshold));
  return { score, risky, threshold: combiner.threshold, signals: [...signals, read].sort(byWeight) };
}

// The largest score of three decimals under the threshold.
function stepUnder(threshold: number): number {
  return (Math.ceil(threshold * 1000) - 1) / 1000;
}

function byWeight(a: InjectionSignal, b: InjectionSignal): number {
  return b.weight - a.weight || a.name.localeCompare(b.name);
}

function verdict(score: number, threshold: number, signals: InjectionSignal[]): InjectionRisk {
  return { score, risky: score >= threshold, threshold, signals };
}

function strongestByName(found: Signal[]): InjectionSignal[] {
  const strongest = new Map<string, Signal>();
  for (const s of found) {
    if (s.weight < CUTOFFS.risk.signalFloor) continue;
    const seen = strongest.get(s.name);
    if (seen === undefined || s.weight > seen.weight) strongest.set(s.name, s);
  }
  return [...strongest.values()].map((s) => ({ name: s.name, weight: round(s.weight), evidence: s.evidence })).sort(byWeight);
}

// The model sees the rule signals as features, so its probability already accounts for them.
// It joins the combination as one more signal, sharpened (p^sharpen, the exponent in the model
// file) because windows of benign look-alikes still reach p 0.8-0.9: alone it flags only when
// confident, beside a rule hit it tips the balance. Under the floor it is left out, so ordinary mail
// carries no trail of it.
function learnedSignal(model: InjectionModel, text: string, hidden: string, rules: Signal[]): Signal[] {
  const verdict = modelVerdict(model, text, hidden, rules);
  if (verdict === null) return [];
  const weight = Math.min(CUTOFFS.risk.learnedCap, verdict.p ** model.sharpen);
  if (weight < model.floor) return [];
  return [{ name: "learned_model", weight, evidence: `p ${verdict.p.toFixed(2)} ${verdict.evidence}`.slice(0, 120) }];
}

// Sanitization removed these characters and kept only counts. Unicode tags outside flag
// emoji (which sanitization keeps) and long runs of other invisibles encode text a human
// cannot see; zero-width and bidi characters are common in ordinary marketing and RTL mail.
function invisibleSignals(report: Record<string, number>): Signal[] {
  const n = (key: string) => (Number.isFinite(report[key]) ? report[key] : 0);
  const N = CUTOFFS.invisible;
  const out: Signal[] = [];
  const tags = n("unicode_tags");
  if (tags > 0)
    out.push({
      name: "invisible_tags",
      weight: tags >= N.tagsManyCount ? W.invisible.tagsMany : tags >= N.tagsSomeCount ? W.invisible.tagsSome : W.invisible.tagsFew,
      evidence: `${tags} invisible Unicode tag characters removed (hidden ASCII text)`,
    });
  const other = n("other_invisible");
  if (other >= N.otherMinCount)
    out.push({
      name: "invisible_payload",
      weight: other >= N.otherManyCount ? W.invisible.otherMany : other >= N.otherSomeCount ? W.invisible.otherSome : W.invisible.otherFew,
      evidence: `${other} other invisible characters removed (variation selectors, controls, private use)`,
    });
  const zw = n("zero_width_chars");
  if (zw >= N.zeroWidthMinCount)
    out.push({ name: "zero_width", weight: W.invisible.zeroWidth, evidence: `${zw} zero-width characters removed` });
  const bidi = n("bidi_controls");
  if (bidi >= N.bidiMinCount)
    out.push({ name: "bidi_controls", weight: W.invisible.bidi, evidence: `${bidi} bidirectional control characters removed` });
  return out;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
