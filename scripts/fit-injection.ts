// Fits the injection detector's combination: one scale per signal name and the decision
// threshold (src/comprehension/injection/weights.json, "fitted"), with the learned stage's
// signal among the others, as SpamAssassin fits its scores apart from its rules.
//
// Data, none of it trained on by the learned stage (so its signal is honest here):
//   - test/fixtures/injection/holdout-9/10/11.json: 180 attacks and 180 hard benign look-alikes
//     (written for earlier rounds; development sets since, never in the learned stage's data);
//   - test/fixtures/injection-modern/train: the modern training slice (attacks in polite business
//     phrasing, quoted history, signatures, fake forwards, tool JSON, markdown images, role
//     markers, base64, ten languages; benign: security newsletters, IT announcing assistants,
//     colleagues asking to forward invoices);
//   - 400 real ham from the SpamAssassin easy-ham-1 group, as benign.
// The blind slice (test/fixtures/injection-modern/blind) is never read here.
//
// Fit: the combined score is 1 - prod(1 - min(0.95, weight x scale)) over the signals; the scales
// (log-scale, a Gaussian prior pulling each toward 1) minimise the class-balanced log loss by
// coordinate descent, attacks weighing as much against benign mail as the 3% / 0.5% limits on
// out-of-fold false alarms allow (main below); the written scales are fitted on all.
//
//   nice bun scripts/fit-injection.ts [--dry-run]
import { readFileSync, writeFileSync } from "node:fs";
import { simpleParser } from "mailparser";
import { shippedModel } from "../src/comprehension/injection/model.ts";
import { scoreInjectionRisk } from "../src/comprehension/injection/risk.ts";
import type { FittedWeights } from "../src/comprehension/injection/weights.ts";
import { sanitizeBody } from "../src/mail/sanitize.ts";
import { injectionInput, injectionRecords } from "./eval-modern.ts";
import { loadCorpus } from "./train-spam.ts";

export type Doc = { source: string; kind: "attack" | "benign" | "ham"; signals: { key: string; w: number }[] };

const FIT_HOLDOUTS = ["holdout-9.json", "holdout-10.json", "holdout-11.json"];
const HAM_SAMPLE = 400;
const CAP = 0.95;
const PRIOR = 0.02; // per scale, on (ln scale)^2: a scale moves from 1 only when the data say so
const GRID = Array.from({ length: 31 }, (_, i) => -1.5 + i * 0.1);
const ROUNDS = 4;
const FOLDS = 5;
const MAX_BENIGN_FLAGGED = 0.03;
const MAX_HAM_FLAGGED = 0.005;
const UNFITTED: FittedWeights = { method: "unfitted", threshold: 0.5, scale: {} };

const base = (name: string) => name.replace(/^(hidden|encoded)_/, "");

export async function loadDocs(): Promise<Doc[]> {
  const model = shippedModel();
  const docs: Doc[] = [];
  const add = (source: string, kind: Doc["kind"], input: Parameters<typeof scoreInjectionRisk>[0]) => {
    const r = scoreInjectionRisk(input, model, UNFITTED);
    docs.push({ source, kind, signals: r.signals.map((s) => ({ key: base(s.name), w: s.weight })) });
  };
  const dir = new URL("../test/fixtures/injection/", import.meta.url);
  for (const file of FIT_HOLDOUTS) {
    const items = JSON.parse(readFileSync(new URL(file, dir), "utf8")) as {
      id: string;
      subject: string;
      body_clean: string;
      hidden_text: string;
      report: Record<string, number>;
      malicious: boolean;
    }[];
    for (const it of items)
      add(`${file}:${it.id}`, it.malicious ? "attack" : "benign", {
        subject: it.subject,
        bodyClean: it.body_clean,
        hiddenText: it.hidden_text,
        report: it.report,
      });
  }
  for (const r of injectionRecords("train")) add(`modern:${r.id}`, r.label === "injection" ? "attack" : "benign", await injectionInput(r));
  const ham = await loadCorpus(["easy-ham-1"], (i) => i % 6 === 0);
  for (const m of ham.slice(0, HAM_SAMPLE)) {
    const mail = await simpleParser(Buffer.from(m.raw));
    const body = sanitizeBody({ text: mail.text, html: typeof mail.html === "string" ? mail.html : null }, { maxChars: 100_000 });
    add(`ham:${m.id}`, "ham", {
      subject: mail.subject ?? "",
      bodyClean: body.body_clean ?? "",
      hiddenText: body.hidden_text,
      report: body.report as unknown as Record<string, number>,
    });
  }
  return docs;
}

function score(d: Doc, scale: Map<string, number>): number {
  let keep = 1;
  for (const s of d.signals) keep *= 1 - Math.min(CAP, s.w * (scale.get(s.key) ?? 1));
  return 1 - keep;
}

function fit(docs: Doc[], attackShare = 0.5): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of docs) for (const k of new Set(d.signals.map((s) => s.key))) counts.set(k, (counts.get(k) ?? 0) + 1);
  const keys = [...counts]
    .filter(([, n]) => n >= 3)
    .map(([k]) => k)
    .sort();
  const total = { attack: 0, benign: 0, ham: 0 };
  for (const d of docs) total[d.kind]++;
  // Attacks weigh as much as all benign mail; within benign, look-alikes and real ham halve it.
  const benignShare = (1 - attackShare) / 2;
  const weight = {
    attack: attackShare / total.attack,
    benign: benignShare / Math.max(1, total.benign),
    ham: benignShare / Math.max(1, total.ham),
  };
  const logScale = new Map<string, number>(keys.map((k) => [k, 0]));
  const scale = new Map<string, number>(keys.map((k) => [k, 1]));
  const byKey = new Map<string, Doc[]>(keys.map((k) => [k, docs.filter((d) => d.signals.some((s) => s.key === k))]));
  const loss = (subset: Doc[]) => {
    let l = 0;
    for (const d of subset) {
      const p = Math.min(1 - 1e-4, Math.max(1e-4, score(d, scale)));
      l -= weight[d.kind] * (d.kind === "attack" ? Math.log(p) : Math.log(1 - p));
    }
    return l;
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of keys) {
      const subset = byKey.get(k)!;
      let best = { x: logScale.get(k)!, l: Infinity };
      for (const x of GRID) {
        scale.set(k, Math.exp(x));
        const l = loss(subset) + PRIOR * x * x;
        if (l < best.l - 1e-12) best = { x, l };
      }
      logScale.set(k, best.x);
      scale.set(k, Math.round(Math.exp(best.x) * 1000) / 1000);
    }
  }
  return scale;
}

function rates(docs: Doc[], p: number[], t: number) {
  const of = (kind: Doc["kind"]) => docs.map((d, i) => ({ d, p: p[i]! })).filter((x) => x.d.kind === kind);
  const frac = (kind: Doc["kind"]) => {
    const xs = of(kind);
    return { flagged: xs.filter((x) => x.p >= t).length, n: xs.length };
  };
  return { attack: frac("attack"), benign: frac("benign"), ham: frac("ham") };
}

export function chooseThreshold(docs: Doc[], p: number[]): number {
  for (let step = 20; step <= 95; step++) {
    const t = step / 100;
    const r = rates(docs, p, t);
    if (r.benign.flagged <= MAX_BENIGN_FLAGGED * r.benign.n && r.ham.flagged <= MAX_HAM_FLAGGED * r.ham.n) return t;
  }
  return 0.95;
}

export function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const fmt = (r: ReturnType<typeof rates>) =>
  `attacks caught ${r.attack.flagged}/${r.attack.n} (${((100 * r.attack.flagged) / r.attack.n).toFixed(1)}%), ` +
  `look-alikes flagged ${r.benign.flagged}/${r.benign.n} (${((100 * r.benign.flagged) / r.benign.n).toFixed(1)}%), ` +
  `real ham flagged ${r.ham.flagged}/${r.ham.n}`;

if (import.meta.main) {
  const started = performance.now();
  const docs = await loadDocs();
  console.log(
    `${docs.length} documents: ${docs.filter((d) => d.kind === "attack").length} attacks, ${docs.filter((d) => d.kind === "benign").length} look-alikes, ${docs.filter((d) => d.kind === "ham").length} real ham`,
  );
  const unfitted = docs.map((d) => score(d, new Map()));
  console.log(`unfitted (scales 1) at 0.5: ${fmt(rates(docs, unfitted, 0.5))}`);
  // The cut-off stays at 0.5, where signals the fitting data never show (Unicode tags, rarer
  // structures) keep the meaning their rule gave them; what is fitted is the scales that put
  // the decision there, and how much an attack weighs against benign mail in the loss: the
  // largest attack share whose out-of-fold scores flag at most 3% of look-alikes and 0.5% of
  // real ham at 0.5.
  const threshold = 0.5;
  let chosen = { share: 0.3, oof: [] as number[] };
  for (const share of [0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.15, 0.1]) {
    const oof = new Array<number>(docs.length);
    for (let k = 0; k < FOLDS; k++) {
      const scale = fit(
        docs.filter((d) => fnv(d.source) % FOLDS !== k),
        share,
      );
      docs.forEach((d, i) => {
        if (fnv(d.source) % FOLDS === k) oof[i] = score(d, scale);
      });
    }
    const r = rates(docs, oof, threshold);
    console.log(`attack share ${share}: out-of-fold at ${threshold}: ${fmt(r)}`);
    chosen = { share, oof };
    if (r.benign.flagged <= MAX_BENIGN_FLAGGED * r.benign.n && r.ham.flagged <= MAX_HAM_FLAGGED * r.ham.n) break;
  }
  const scale = fit(docs, chosen.share);
  const all = docs.map((d) => score(d, scale));
  console.log(`fitted on all (attack share ${chosen.share}), in-sample at ${threshold}: ${fmt(rates(docs, all, threshold))}`);
  const changed = [...scale].filter(([, s]) => s !== 1).sort((a, b) => a[0].localeCompare(b[0]));
  console.log(`scales (${changed.length} of ${scale.size} moved from 1): ${changed.map(([k, s]) => `${k} ${s}`).join(", ")}`);
  if (!process.argv.includes("--dry-run")) {
    const path = new URL("../src/comprehension/injection/weights.json", import.meta.url);
    const file = JSON.parse(readFileSync(path, "utf8"));
    file.fitted = {
      method:
        `scripts/fit-injection.ts: ${docs.length} documents (holdouts 9-11, modern training slice, ${HAM_SAMPLE} SpamAssassin easy-ham-1); ` +
        `log-scale coordinate descent, prior ${PRIOR}, attack share ${chosen.share} (largest whose ${FOLDS}-fold out-of-fold scores flag <= ${MAX_BENIGN_FLAGGED * 100}% of look-alikes and <= ${MAX_HAM_FLAGGED * 100}% of real ham at the 0.5 cut-off)`,
      threshold,
      scale: Object.fromEntries([...scale].sort((a, b) => a[0].localeCompare(b[0]))),
    };
    writeFileSync(path, `${JSON.stringify(file, null, 1)}\n`);
    console.log(`wrote ${path.pathname}`);
  }
  console.log(`${((performance.now() - started) / 1000).toFixed(0)} s`);
}
