// Scores the modern corpora (test/fixtures/spam-modern, test/fixtures/injection-modern) with
// the shipped spam classifier and injection detector. Used by scripts/eval.ts; run alone:
//
//   bun scripts/eval-modern.ts [--slice blind|blind-v2|train] [--threshold x] [--only spam|injection]
//
// Only aggregate figures are printed: the blind slices are scored once per model change and
// their messages are not read while tuning (docs/judgement.md).

import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { simpleParser } from "mailparser";
import { scoreInjectionRisk } from "../src/comprehension/injection/risk.ts";
import { classifySpam, loadSpamModel } from "../src/comprehension/spam/classifier.ts";
import { sanitizeBody } from "../src/mail/sanitize.ts";
import { type CorpusRecord, loadMailDir, toRaw } from "./corpus/mail-file.ts";

const FIXTURES = new URL("../test/fixtures/", import.meta.url).pathname;

export type BinaryScore = { n: number; pos: number; neg: number; tp: number; fp: number; fn: number; tn: number; msPerMessage: number };

export function summary(s: BinaryScore): { precision: number; recall: number; f1: number; fpr: number } {
  const precision = s.tp + s.fp === 0 ? 1 : s.tp / (s.tp + s.fp);
  const recall = s.pos === 0 ? 0 : s.tp / s.pos;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1, fpr: s.neg === 0 ? 0 : s.fp / s.neg };
}

export function formatScore(name: string, s: BinaryScore, negName = "ham flagged"): string {
  const m = summary(s);
  return (
    `${name}: precision ${m.precision.toFixed(3)}, recall ${m.recall.toFixed(3)} (${s.tp}/${s.pos}), F1 ${m.f1.toFixed(3)}, ` +
    `${negName} ${(m.fpr * 100).toFixed(1)}% (${s.fp}/${s.neg}); ${s.msPerMessage.toFixed(2)} ms/message`
  );
}

export function spamRecords(slice: string): CorpusRecord[] {
  return loadMailDir(`${FIXTURES}spam-modern/${slice}`);
}
export function injectionRecords(slice: string): CorpusRecord[] {
  return loadMailDir(`${FIXTURES}injection-modern/${slice}`);
}

/** Spam verdicts at `threshold` (the screening default when omitted: the model's own). */
export async function scoreSpam(
  records: CorpusRecord[],
  threshold?: number,
): Promise<{ score: BinaryScore; byFamily: Map<string, [number, number]>; byLanguage: Map<string, [number, number]> }> {
  const model = await loadSpamModel();
  const t = threshold ?? model.threshold;
  const s: BinaryScore = { n: 0, pos: 0, neg: 0, tp: 0, fp: 0, fn: 0, tn: 0, msPerMessage: 0 };
  const byFamily = new Map<string, [number, number]>();
  const byLanguage = new Map<string, [number, number]>();
  let ms = 0;
  for (const r of records) {
    const raw = new TextEncoder().encode(toRaw(r));
    const t0 = performance.now();
    const v = await classifySpam(raw, model, { receivedAt: new Date("2026-05-13T09:31:00Z") });
    ms += performance.now() - t0;
    const flagged = v.score >= t;
    const spam = r.label === "spam";
    s.n++;
    if (spam) s.pos++, flagged ? s.tp++ : s.fn++;
    else s.neg++, flagged ? s.fp++ : s.tn++;
    for (const [map, key] of [
      [byFamily, `${r.label}/${r.family.split("-")[0]}`],
      [byLanguage, `${r.label}/${r.language}`],
    ] as const) {
      const c = map.get(key) ?? [0, 0];
      c[0] += flagged ? 1 : 0;
      c[1]++;
      map.set(key, c);
    }
  }
  s.msPerMessage = ms / Math.max(1, s.n);
  return { score: s, byFamily, byLanguage };
}

/** The injection detector on each record as screening reads it: parsed, sanitized, scored. */
export async function scoreInjection(records: CorpusRecord[]): Promise<{ score: BinaryScore; byLanguage: Map<string, [number, number]> }> {
  const s: BinaryScore = { n: 0, pos: 0, neg: 0, tp: 0, fp: 0, fn: 0, tn: 0, msPerMessage: 0 };
  const byLanguage = new Map<string, [number, number]>();
  let ms = 0;
  for (const r of records) {
    const input = await injectionInput(r);
    const t0 = performance.now();
    const risky = scoreInjectionRisk(input).risky;
    ms += performance.now() - t0;
    const positive = r.label === "injection";
    s.n++;
    if (positive) s.pos++, risky ? s.tp++ : s.fn++;
    else s.neg++, risky ? s.fp++ : s.tn++;
    const key = `${r.label}/${r.language}`;
    const c = byLanguage.get(key) ?? [0, 0];
    c[0] += risky ? 1 : 0;
    c[1]++;
    byLanguage.set(key, c);
  }
  s.msPerMessage = ms / Math.max(1, s.n);
  return { score: s, byLanguage };
}

export async function injectionInput(r: CorpusRecord) {
  const mail = await simpleParser(toRaw(r));
  const body = sanitizeBody({ text: mail.text, html: typeof mail.html === "string" ? mail.html : null }, { maxChars: 100_000 });
  return {
    subject: mail.subject ?? "",
    bodyClean: body.body_clean ?? "",
    hiddenText: body.hidden_text,
    report: body.report as unknown as Record<string, number>,
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      slice: { type: "string", default: "blind" },
      threshold: { type: "string" },
      detail: { type: "boolean", default: false },
      only: { type: "string" },
    },
  });
  const slice = values.slice!;
  // A slice may exist for one corpus only (a second blind slice lands per corpus).
  if (values.only !== "injection" && existsSync(`${FIXTURES}spam-modern/${slice}`)) {
    const spam = await scoreSpam(spamRecords(slice), values.threshold ? Number(values.threshold) : undefined);
    console.log(formatScore(`spam ${slice}`, spam.score));
    if (values.detail) for (const [k, [a, b]] of [...spam.byFamily, ...spam.byLanguage].sort()) console.log(`  ${k}: ${a}/${b} flagged`);
  }
  if (values.only !== "spam" && existsSync(`${FIXTURES}injection-modern/${slice}`)) {
    const inj = await scoreInjection(injectionRecords(slice));
    console.log(formatScore(`injection ${slice}`, inj.score, "benign flagged"));
    if (values.detail) for (const [k, [a, b]] of [...inj.byLanguage].sort()) console.log(`  ${k}: ${a}/${b} flagged`);
  }
}
