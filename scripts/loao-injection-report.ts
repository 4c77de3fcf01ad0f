// Scores the records of scripts/loao-injection.ts. For each author's slice: attacks caught and
// look-alikes flagged by the detector whose learned stage never saw that author (the fold that
// left it out), pooled over the authors too; beside them, with the learned stage trained on every
// slice (the one that would ship), the combiner's fitting data by source and the composed hard
// look-alikes (seed 11), none of which any of these learned stages trained on. All under the
// combiner in combiner.json at its threshold, for each sharpen exponent given (the learned signal is
// p^sharpen, model.ts); with --refit also under a combiner refitted per fold on that fold's
// fitting data (fit-injection.ts `fit`, prior 4, attack share and L2 as given), scored out of
// fold (5 folds) on the fitting data.
//
//   npx bun scripts/loao-injection-report.ts [--dir /tmp/inj-loao] [--sharpen 4,6,8] [--refit]
//     [--share 0.5] [--penalty 0.003] [--languages] [--authors train-v2,train-v3,train-v4,train-v5]
//
// `--authors` (default AUTHOR_SLICES): the slices to score, each from <slice>.json in DIR (a fold
// that left it out, or loao-injection.ts --held-out).
//
// `--dir` holds <slice>.json per fold and all.json, or shipped.json (a shipped learned stage that
// trained on no author's slice, as before change 12, on everything: loao-injection.ts --shipped
// refuses to write it since), or the control train-v2+train-v3.json (retrained leaving every
// author out).
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { COMBINER, type Combiner, combinedScore, evidence } from "../src/comprehension/injection/combiner.ts";
import { CUTOFFS } from "../src/comprehension/injection/weights.ts";
import { type Doc, fit, fnv } from "./fit-injection.ts";
import type { Records, Seen } from "./loao-injection.ts";
import { AUTHOR_SLICES } from "./train-injection.ts";

/** The signals the detector would combine: the rules', and the learned stage's as risk.ts weighs it. */
export function features(x: Seen, sharpen: number, floor = 0.05): Map<string, number> {
  const signals = [...x.rules];
  if (x.p !== null) {
    const w = Math.min(CUTOFFS.risk.learnedCap, x.p ** sharpen);
    if (w >= floor && w >= CUTOFFS.risk.signalFloor) signals.push({ name: "learned_model", weight: w });
  }
  return evidence(signals);
}

const prefix = (x: Seen) => x.source.slice(0, x.source.indexOf(":"));
const AUTHORS = process.argv.includes("--authors") ? process.argv[process.argv.indexOf("--authors") + 1].split(",") : AUTHOR_SLICES;
const isAuthor = (x: Seen) => AUTHORS.includes(prefix(x));
const isFitting = (x: Seen) => !isAuthor(x) && prefix(x) !== "hard";
/** The fitting data's sources as fit-injection.ts groups them, the rest by prefix. */
const group = (x: Seen) => (prefix(x).startsWith("holdout") || prefix(x) === "modern" ? "hand-written" : prefix(x));

type Tally = Map<string, [number, number]>;
function tally(items: Seen[], flagged: (x: Seen) => boolean, key: (x: Seen) => string, into: Tally = new Map()): Tally {
  for (const x of items) {
    const c = into.get(key(x)) ?? [0, 0];
    c[0] += flagged(x) ? 1 : 0;
    c[1]++;
    into.set(key(x), c);
  }
  return into;
}
const show = (m: Tally) =>
  [...m]
    .sort()
    .map(([k, [a, b]]) => `${k} ${a}/${b}`)
    .join(", ");

function refit(items: Seen[], sharpen: number, share: number, penalty: number): Combiner {
  const docs: Doc[] = items.filter(isFitting).map((x) => ({ source: x.source, kind: x.kind, features: features(x, sharpen) }));
  return fit(docs, COMBINER.prior, penalty, share);
}

function outOfFold(items: Seen[], sharpen: number, share: number, penalty: number): Map<string, number> {
  const fitting = items.filter(isFitting);
  const out = new Map<string, number>();
  for (let k = 0; k < 5; k++) {
    const c = refit(
      fitting.filter((x) => fnv(x.source) % 5 !== k),
      sharpen,
      share,
      penalty,
    );
    for (const x of fitting) if (fnv(x.source) % 5 === k) out.set(x.source, combinedScore(features(x, sharpen), c));
  }
  return out;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      dir: { type: "string", default: "/tmp/inj-loao" },
      sharpen: { type: "string", default: "4" },
      share: { type: "string", default: "0.5" },
      penalty: { type: "string", default: "0.003" },
      refit: { type: "boolean", default: false },
      languages: { type: "boolean", default: false },
      authors: { type: "string" },
    },
  });
  const load = (name: string): Seen[] | null => {
    const file = `${values.dir}/${name}.json`;
    return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Records).items : null;
  };
  // One file holding every author, from a stage trained on none: the shipped one, or the control
  // that leaves all of them out (what retraining alone does).
  const shipped = load("shipped") ?? load(AUTHOR_SLICES.join("+"));
  // Held-out records per author (its own fold, or the shipped stage), and the all-slices records.
  const heldOut = AUTHORS.map((a) => ({ author: a, items: (shipped ?? load(a) ?? []).filter((x) => prefix(x) === a) }));
  const all = shipped?.filter((x) => !isAuthor(x)) ?? load("all") ?? [];
  const t = COMBINER.threshold;
  const [share, penalty] = [Number(values.share), Number(values.penalty)];
  for (const sharpen of values.sharpen!.split(",").map(Number)) {
    const flagged = (c: Combiner) => (x: Seen) => combinedScore(features(x, sharpen), c) >= c.threshold;
    const authors: Tally = new Map();
    const refitted: Tally = new Map();
    const languages: Tally = new Map();
    for (const { author, items } of heldOut) {
      tally(items, flagged(COMBINER), (x) => `${x.kind} ${author}`, authors);
      if (values.languages) tally(items, flagged(COMBINER), (x) => `${x.kind} ${x.language === "en" ? "en" : "other"}`, languages);
      // a fold's combiner is fitted on that fold's records of the fitting data (its own learned stage)
      const fold = shipped ?? load(author);
      if (values.refit && fold) tally(items, flagged(refit(fold, sharpen, share, penalty)), (x) => `${x.kind} ${author}`, refitted);
    }
    const pooled = (kind: string) =>
      [...authors].filter(([k]) => k.startsWith(kind)).reduce((s, [, [a, b]]) => [s[0] + a, s[1] + b], [0, 0]);
    const [ca, na] = pooled("attack");
    const [fb, nb] = pooled("benign");
    console.log(
      `sharpen ${sharpen}, threshold ${t}: authors held out, pooled: attacks ${ca}/${na}, look-alikes ${fb}/${nb}; ${show(authors)}`,
    );
    if (values.languages) console.log(`  by language: ${show(languages)}`);
    if (values.refit) console.log(`  refitted combiner per fold (share ${share}, L2 ${penalty}): ${show(refitted)}`);
    if (all.length > 0) {
      console.log(`  combiner.json, all-slices stage: ${show(tally(all, flagged(COMBINER), (x) => `${x.kind} ${group(x)}`))}`);
      if (values.refit) {
        const oof = outOfFold(all, sharpen, share, penalty);
        const fitting = all.filter(isFitting);
        console.log(
          `  refitted, out of fold: ${show(
            tally(
              fitting,
              (x) => oof.get(x.source)! >= t,
              (x) => `${x.kind} ${group(x)}`,
            ),
          )}`,
        );
      }
    }
  }
}
