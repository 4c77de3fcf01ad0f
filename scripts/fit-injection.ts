// Fits the injection detector's combiner (src/comprehension/injection/combiner.json): one weight
// per signal name, a weight for hidden and for encoded placement, a bias and the threshold, as
// SpamAssassin fits its scores apart from its rules. The learned stage's signal is one of the
// features; the rules' own strengths (weights.json) are the feature values.
//
// Training data, none of it read by the learned stage's trainer (so its signal is honest here):
//   - test/fixtures/injection/holdout-9/10/11.json: 180 attacks, 180 hard benign look-alikes;
//   - test/fixtures/injection-modern/train: the hand-written modern training slice;
//   - the composed slice (scripts/corpus/compose-injection.ts, 1,200 messages, seed 7): covers
//     of every kind with payloads in many voices and placements, and look-alikes;
//   - 400 real ham from the SpamAssassin easy-ham-1 group, as benign;
//   - test/fixtures/injection-modern/train-v2 and train-v3 (other authors' hand-written slices),
//     unless --without-hand-slices (then they are only scored, by the combiner it replaces), and
//     only while the learned stage has not trained on them (it has since change 6).
// The blind slices (test/fixtures/injection-modern/blind, blind-v2) are never read here.
//
// Also fitted, by the same out-of-fold recall: how much a "> " reply line and words in quotation
// marks or code damp a rule's hit (weights.json context.timesReplyQuoted, timesQuoted), tried on
// a small grid with every signal recomputed (--context 1,0.5 holds them).
//
// Fit: logistic regression over the signals' noisy-OR evidence (combiner.ts). The bias and the
// cut-off stay where the noisy-OR at 0.5 puts them and the L2 penalty pulls each weight toward the
// prior slope, so a signal the data never show keeps its rule's meaning; weights are kept
// non-negative (a rule is evidence for an attack, never against). Chosen by 5-fold out-of-fold
// recall: the attack share of the loss (and the prior slope and penalty when given several), the
// largest whose out-of-fold scores flag at most 3% of the look-alikes of each source (composed,
// hand-written, each other author's slice apart; train-v2/v3 exempt from the 3%, which no setting
// reaches), no more look-alikes of any source than the combiner it replaces (combiner.json as it
// stands when the fit starts), and 0.5% of real ham. The written model is fitted on all the data.
// Per source it prints attacks caught and look-alikes flagged out of fold, and the composed hard
// look-alikes (seed 11, never fitted on) flagged by the chosen and by the replaced combiner.
//
//   nice -n 19 npx bun scripts/fit-injection.ts [--dry-run] [--context 1,0.5] [--without-hand-slices]
//     [--priors 4,8] [--penalties 0.003,0.001]
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { simpleParser } from "mailparser";
import { COMBINER, type Combiner, combinedScore, evidence, noisyOrCombiner, sigmoid } from "../src/comprehension/injection/combiner.ts";
import { shippedModel } from "../src/comprehension/injection/model.ts";
import { scoreInjectionRisk } from "../src/comprehension/injection/risk.ts";
import { WEIGHTS } from "../src/comprehension/injection/weights.ts";
import { sanitizeBody } from "../src/mail/sanitize.ts";
import { composeInjection } from "./corpus/compose-injection.ts";
import { HARD_LOOKALIKES_EN, HARD_LOOKALIKES_INTL } from "./corpus/fragments-injection-hard.ts";
import { injectionInput, injectionRecords } from "./eval-modern.ts";
import { loadCorpus } from "./train-spam.ts";

export type Doc = { source: string; kind: "attack" | "benign" | "ham"; features: Map<string, number> };

const FIT_HOLDOUTS = ["holdout-9.json", "holdout-10.json", "holdout-11.json"];
// Other authors' slices enter the fit only while the learned stage has not trained on them (its
// signal on mail it trained on would be too good; train-injection.ts AUTHOR_SLICES, model.json
// trained_on): once it has, they are judged leave-one-author-out by scripts/loao-injection.ts.
const TRAINED_ON = Object.keys(
  (JSON.parse(readFileSync(new URL("../src/comprehension/injection/model.json", import.meta.url), "utf8")) as { trained_on: object })
    .trained_on,
);
const HAND_SLICES = ["train-v2", "train-v3"].filter((x) => !TRAINED_ON.includes(x));
// `--without-hand-slices`: the fitting set as before train-v2 (the two slices are then scored only)
const WITH_HAND_SLICES = !process.argv.includes("--without-hand-slices");
const HAM_SAMPLE = 400;
export const COMPOSED = { n: 1200, seed: 7 };
const FOLDS = 5;
const MAX_BENIGN_FLAGGED = 0.03;
const MAX_HAM_FLAGGED = 0.005;
// Prior 8 ranks first out-of-fold once train-v2 and train-v3 are in, but its steeper curve scores a
// lone weak signal lower (a lone learned-stage 0.39 at 0.25 against 0.36), under the "raised"
// bounds the detector's tests hold; `--priors 4,8` tries it.
const PRIORS_ARG = process.argv.indexOf("--priors");
const PRIORS = PRIORS_ARG > 0 ? process.argv[PRIORS_ARG + 1]!.split(",").map(Number) : [4];
// `--penalties 0.003,0.001` tries others (0.001 and 0.002 rank higher out of fold with train-v2 and
// train-v3 in the fit, but each flags one look-alike more of some source than the combiner it replaces)
const PENALTY_ARG = process.argv.indexOf("--penalties");
const PENALTIES = PENALTY_ARG > 0 ? process.argv[PENALTY_ARG + 1]!.split(",").map(Number) : [0.003];
const SHARES = [0.6, 0.55, 0.5, 0.45, 0.4, 0.3, 0.2, 0.1]; // how much attacks weigh against benign mail in the loss
const MIN_DOCS = 3; // a feature seen in fewer documents keeps the prior
const ITERATIONS = 1500;
// Candidate context factors (weights.json context): the damping of "> " reply lines, and of words
// in quotation marks or code.
// `--context 1,0.5` tries only that pair (the shipped one), a ninth of the time.
const CONTEXT_ARG = process.argv.indexOf("--context");
const CONTEXTS: { timesReplyQuoted: number; timesQuoted: number }[] =
  CONTEXT_ARG > 0
    ? [process.argv[CONTEXT_ARG + 1]!.split(",").map(Number)].map(([timesReplyQuoted, timesQuoted]) => ({
        timesReplyQuoted: timesReplyQuoted!,
        timesQuoted: timesQuoted!,
      }))
    : [0.5, 0.75, 1].flatMap((timesReplyQuoted) => [0.5, 0.3, 0.15].map((timesQuoted) => ({ timesReplyQuoted, timesQuoted })));

type Input = Parameters<typeof scoreInjectionRisk>[0];
type Labelled = { source: string; kind: Doc["kind"]; input: Input };

export async function loadInputs(withHandSlices = WITH_HAND_SLICES): Promise<Labelled[]> {
  const out: Labelled[] = [];
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
      out.push({
        source: `${file}:${it.id}`,
        kind: it.malicious ? "attack" : "benign",
        input: { subject: it.subject, bodyClean: it.body_clean, hiddenText: it.hidden_text, report: it.report },
      });
  }
  for (const r of injectionRecords("train"))
    out.push({ source: `modern:${r.id}`, kind: r.label === "injection" ? "attack" : "benign", input: await injectionInput(r) });
  // The hand-written slices of other authors (train-v2, train-v3) the learned stage has not
  // trained on enter the fit directly. Each is held to the look-alike limit on its own.
  for (const slice of HAND_SLICES) {
    if (!withHandSlices) break;
    if (!existsSync(new URL(`../test/fixtures/injection-modern/${slice}`, import.meta.url))) continue;
    for (const r of injectionRecords(slice))
      out.push({ source: `${slice}:${r.id}`, kind: r.label === "injection" ? "attack" : "benign", input: await injectionInput(r) });
  }
  for (const r of composeInjection(COMPOSED.n, COMPOSED.seed))
    out.push({ source: `composed:${r.id}`, kind: r.label === "injection" ? "attack" : "benign", input: await injectionInput(r) });
  const ham = await loadCorpus(["easy-ham-1"], (i) => i % 6 === 0);
  for (const m of ham.slice(0, HAM_SAMPLE)) {
    const mail = await simpleParser(Buffer.from(m.raw));
    const body = sanitizeBody({ text: mail.text, html: typeof mail.html === "string" ? mail.html : null }, { maxChars: 100_000 });
    out.push({
      source: `ham:${m.id}`,
      kind: "ham",
      input: {
        subject: mail.subject ?? "",
        bodyClean: body.body_clean ?? "",
        hiddenText: body.hidden_text,
        report: body.report as unknown as Record<string, number>,
      },
    });
  }
  return out;
}

/** Each document's features under the rule strengths WEIGHTS holds now. */
export function toDocs(inputs: Labelled[]): Doc[] {
  const model = shippedModel();
  return inputs.map((x) => ({
    source: x.source,
    kind: x.kind,
    features: evidence(scoreInjectionRisk(x.input, model, undefined, null).signals),
  }));
}

/** Class-balanced, L2 toward the noisy-OR prior, non-negative weights; full-batch gradient descent. */
export function fit(docs: Doc[], prior: number, penalty: number, attackShare = 0.5): Combiner {
  const counts = new Map<string, number>();
  for (const d of docs) for (const k of d.features.keys()) counts.set(k, (counts.get(k) ?? 0) + 1);
  const keys = [...counts]
    .filter(([, n]) => n >= MIN_DOCS)
    .map(([k]) => k)
    .sort();
  const center = (k: string) => (k.startsWith("origin:") ? 0 : prior);
  const total = { attack: 0, benign: 0, ham: 0 };
  for (const d of docs) total[d.kind]++;
  const share = { attack: attackShare, benign: (1 - attackShare) / 2, ham: (1 - attackShare) / 2 };
  const weightOf = (d: Doc) => share[d.kind] / Math.max(1, total[d.kind]);
  const w = new Map<string, number>(keys.map((k) => [k, center(k)]));
  // The bias stays where the noisy-OR puts it, so the cut-off keeps its meaning for every signal,
  // seen in training or not; what the data move is each signal's weight.
  const bias = -prior * Math.LN2;
  const rate = 2;
  const velocity = new Map<string, number>(keys.map((k) => [k, 0]));
  for (let it = 0; it < ITERATIONS; it++) {
    const grad = new Map<string, number>(keys.map((k) => [k, 2 * penalty * (w.get(k)! - center(k))]));
    for (const d of docs) {
      let z = bias;
      for (const [k, e] of d.features) z += (w.get(k) ?? center(k)) * e;
      const err = (sigmoid(z) - (d.kind === "attack" ? 1 : 0)) * weightOf(d);
      for (const [k, e] of d.features) if (grad.has(k)) grad.set(k, grad.get(k)! + err * e);
    }
    for (const k of keys) {
      const v = 0.9 * velocity.get(k)! - rate * grad.get(k)!;
      velocity.set(k, v);
      w.set(k, Math.max(0, w.get(k)! + v));
    }
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { ...noisyOrCombiner(prior), weights: Object.fromEntries([...w].map(([k, v]) => [k, round(v)])) };
}

function rates(docs: Doc[], p: number[], t: number) {
  const frac = (kind: Doc["kind"]) => {
    let flagged = 0;
    let n = 0;
    docs.forEach((d, i) => {
      if (d.kind !== kind) return;
      n++;
      if (p[i]! >= t) flagged++;
    });
    return { flagged, n };
  };
  return { attack: frac("attack"), benign: frac("benign"), ham: frac("ham") };
}

// Look-alikes are held to the limit in each source on its own: the composed ones are easier than
// the hand-written ones (holdouts and the modern slice), and pooled they would hide their false alarms.
// The other authors' slices (train-v2, train-v3) are sources of their own.
const group = (d: Doc) => {
  const prefix = d.source.slice(0, d.source.indexOf(":"));
  if (prefix === "composed" || HAND_SLICES.includes(prefix)) return prefix;
  return "hand-written";
};

/**
 * At most 3% of each source's look-alikes flagged (a source of a few dozen may flag one), and no more
 * than `replaced` gives for that source: the count the combiner being replaced flags with the rules
 * as they are now. The other authors' slices (train-v2, train-v3) cannot be brought under 3% by any
 * setting (their false alarms are lone strong signals, which a non-negative weight with the bias
 * held cannot silence), so for them only the second bound holds. And at most 0.5% of real ham.
 */
export function withinLimits(docs: Doc[], p: number[], t: number, replaced: Map<string, number> = new Map()): boolean {
  const groups = [...new Set(docs.filter((d) => d.kind === "benign").map(group))];
  const each = groups.every((g) => {
    const idx = docs.map((d, i) => [d, i] as const).filter(([d]) => d.kind === "benign" && group(d) === g);
    const cap = Math.max(1, MAX_BENIGN_FLAGGED * idx.length);
    const limit = HAND_SLICES.includes(g) ? (replaced.get(g) ?? cap) : Math.min(cap, replaced.get(g) ?? cap);
    return idx.filter(([, i]) => p[i]! >= t).length <= limit;
  });
  return each && rates(docs, p, t).ham.flagged <= MAX_HAM_FLAGGED * rates(docs, p, t).ham.n;
}

export function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / Math.max(1, b)).toFixed(1)}%)`;
const fmt = (r: ReturnType<typeof rates>) =>
  `attacks caught ${pct(r.attack.flagged, r.attack.n)}, look-alikes flagged ${pct(r.benign.flagged, r.benign.n)}, real ham flagged ${r.ham.flagged}/${r.ham.n}`;

/** Look-alikes flagged per source, and attacks caught per source. */
function bySource(docs: Doc[], p: number[], t: number): string {
  const m = new Map<string, [number, number]>();
  docs.forEach((d, i) => {
    if (d.kind === "ham") return;
    const k = `${d.kind} ${group(d)}`;
    const c = m.get(k) ?? [0, 0];
    c[0] += p[i]! >= t ? 1 : 0;
    c[1]++;
    m.set(k, c);
  });
  return [...m]
    .sort()
    .map(([k, [a, b]]) => `${k} ${a}/${b}`)
    .join(", ");
}

function outOfFold(docs: Doc[], prior: number, penalty: number, share: number): number[] {
  const oof = new Array<number>(docs.length);
  for (let k = 0; k < FOLDS; k++) {
    const c = fit(
      docs.filter((d) => fnv(d.source) % FOLDS !== k),
      prior,
      penalty,
      share,
    );
    docs.forEach((d, i) => {
      if (fnv(d.source) % FOLDS === k) oof[i] = combinedScore(d.features, c);
    });
  }
  return oof;
}

if (import.meta.main) {
  const started = performance.now();
  const inputs = await loadInputs();
  const n = (kind: Doc["kind"]) => inputs.filter((d) => d.kind === kind).length;
  console.log(`${inputs.length} documents: ${n("attack")} attacks, ${n("benign")} look-alikes, ${n("ham")} real ham`);
  let best = { context: CONTEXTS[0]!, prior: 4, penalty: PENALTIES[0]!, share: 0.2, caught: -1, docs: [] as Doc[] };
  for (const context of CONTEXTS) {
    Object.assign(WEIGHTS.context, context);
    const docs = toDocs(inputs);
    const unfitted = noisyOrCombiner(4);
    const plain = docs.map((d) => combinedScore(d.features, unfitted));
    console.log(`  unfitted: ${bySource(docs, plain, unfitted.threshold)}`);
    const shipped = docs.map((d) => combinedScore(d.features, COMBINER));
    const replaced = new Map<string, number>();
    docs.forEach((d, i) => {
      if (d.kind === "benign" && shipped[i]! >= COMBINER.threshold) replaced.set(group(d), (replaced.get(group(d)) ?? 0) + 1);
    });
    for (const d of docs) if (d.kind === "benign" && !replaced.has(group(d))) replaced.set(group(d), 0);
    console.log(
      `  shipped combiner (in-sample on the sources it was fitted on): ${fmt(rates(docs, shipped, COMBINER.threshold))}; ${bySource(docs, shipped, COMBINER.threshold)}`,
    );
    console.log(
      `${JSON.stringify(context)}, noisy-OR at 0.5 (unfitted): ${fmt(
        rates(
          docs,
          docs.map((d) => combinedScore(d.features, unfitted)),
          unfitted.threshold,
        ),
      )}`,
    );
    for (const prior of PRIORS) {
      for (const penalty of PENALTIES) {
        // the largest attack share whose out-of-fold scores stay within the limits at the cut-off
        for (const share of SHARES) {
          const oof = outOfFold(docs, prior, penalty, share);
          const t = noisyOrCombiner(prior).threshold;
          const r = rates(docs, oof, t);
          const ok = withinLimits(docs, oof, t, replaced);
          console.log(
            `  prior ${prior}, penalty ${penalty}, attack share ${share}: out-of-fold ${ok ? "within" : "over"} the limits: ${fmt(r)}`,
          );
          console.log(`    ${bySource(docs, oof, t)}`);
          if (!ok) continue;
          if (r.attack.flagged > best.caught) best = { context, prior, penalty, share, caught: r.attack.flagged, docs };
          break;
        }
      }
    }
  }
  const docs = best.docs;
  if (best.caught < 0) throw new Error("no setting met the limits out of fold");
  const c = fit(docs, best.prior, best.penalty, best.share);
  const slices = HAND_SLICES.filter((x) => docs.some((d) => d.source.startsWith(`${x}:`)));
  const contexts =
    CONTEXTS.length > 1 ? "context.timesReplyQuoted and timesQuoted (weights.json), " : `context held at ${JSON.stringify(best.context)}; `;
  c.method =
    `scripts/fit-injection.ts: ${docs.length} documents (holdouts 9-11, modern training slice, ${slices.map((x) => `${x}, `).join("")}composed slice ${COMPOSED.n} seed ${COMPOSED.seed}, ${HAM_SAMPLE} SpamAssassin easy-ham-1); ` +
    `logistic regression on noisy-OR evidence, bias and cut-off at the noisy-OR's 0.5, L2 ${best.penalty} toward the prior slope ${best.prior}, non-negative; ` +
    `${contexts}penalty and attack share ${best.share} (the largest whose ${FOLDS}-fold out-of-fold scores flag <= ${MAX_BENIGN_FLAGGED * 100}% of the look-alikes of each source (train-v2 and train-v3 exempt), no more of any source than the combiner it replaced, and <= ${MAX_HAM_FLAGGED * 100}% of real ham) by out-of-fold recall`;
  const all = docs.map((d) => combinedScore(d.features, c));
  console.log(
    `chosen ${JSON.stringify(best.context)}, prior ${best.prior}, penalty ${best.penalty}, attack share ${best.share}, threshold ${c.threshold}; in-sample: ${fmt(rates(docs, all, c.threshold))}`,
  );
  console.log(
    `weights: bias ${c.bias}, ${Object.entries(c.weights)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  // The composed hard look-alikes (seed 11), never fitted on: flagged by the chosen combiner and
  // by the shipped one, under the chosen context factors.
  Object.assign(WEIGHTS.context, best.context);
  const hard = toDocs(
    await Promise.all(
      composeInjection(300, 11, { en: HARD_LOOKALIKES_EN, intl: HARD_LOOKALIKES_INTL }).map(async (r) => ({
        source: `hard:${r.id}`,
        kind: "benign" as const,
        input: await injectionInput(r),
      })),
    ),
  );
  const flaggedBy = (x: Combiner) => hard.filter((d) => combinedScore(d.features, x) >= x.threshold).length;
  console.log(
    `seed-11 hard look-alikes flagged: chosen ${pct(flaggedBy(c), hard.length)}, shipped ${pct(flaggedBy(COMBINER), hard.length)}`,
  );
  if (!process.argv.includes("--dry-run")) {
    const path = new URL("../src/comprehension/injection/combiner.json", import.meta.url);
    writeFileSync(path, `${JSON.stringify(c, null, 1)}\n`);
    const weightsPath = new URL("../src/comprehension/injection/weights.json", import.meta.url);
    const file = JSON.parse(readFileSync(weightsPath, "utf8"));
    Object.assign(file.rules.context, best.context);
    writeFileSync(weightsPath, `${JSON.stringify(file, null, 1)}\n`);
    console.log(`wrote ${path.pathname} and the context factors in ${weightsPath.pathname}`);
  }
  console.log(`${((performance.now() - started) / 1000).toFixed(0)} s`);
}
