// Leave-one-author-out for the injection detector's learned stage: for each independent author's
// hand-written slice (train-injection.ts AUTHOR_SLICES), trains the learned stage without that
// slice and records, for the slice left out, what the detector sees: each message's rule signals
// and the learned stage's probability, and the same for the combiner's fitting data and the
// composed hard look-alikes, which no learned stage here trains on; `--all` adds the model trained
// on every slice (the one that would ship), recorded on those two only. Scoring under any combiner, sharpen exponent or threshold is then a
// matter of arithmetic (scripts/loao-injection-report.ts), so every figure it prints for an
// author comes from a model that never saw that author.
//
//   nice -n 19 npx bun scripts/loao-injection.ts [--out DIR] [--folds train-v2,train-v3,train-v2+train-v3] [--all]
//     [--held-out train-v4,train-v5]   slices no stage here trains on, recorded with the all-slices
//                                      stage (saved as <slice>-model.json too, for --rescore)
//   nice -n 19 npx bun scripts/loao-injection.ts --shipped     the shipped learned stage on every slice; refused
//                                      since change 12, when it trains on the authors (in-sample)
//   nice -n 19 npx bun scripts/loao-injection.ts --rescore --out DIR
//     no training: reloads DIR's <fold>-model.json files and records again with the rules as they
//     are now, so a rule change is scored on left-out authors in seconds (the stages were trained
//     with the rules of their run; retrain before shipping a rule change)
//
// Each training takes minutes; the records go to DIR (default /tmp/inj-loao), one JSON file per
// model: <fold>.json (fold = the slice left out, or "all"), and the model itself, <fold>-model.json.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { modelVerdict, parseModel, shippedModel } from "../src/comprehension/injection/model.ts";
import { scoreInjectionRisk } from "../src/comprehension/injection/risk.ts";
import { composeInjection } from "./corpus/compose-injection.ts";
import { HARD_LOOKALIKES_EN, HARD_LOOKALIKES_INTL } from "./corpus/fragments-injection-hard.ts";
import { injectionInput, injectionRecords } from "./eval-modern.ts";
import { loadInputs } from "./fit-injection.ts";
import { AUTHOR_SLICES, loadDocs, type ModelFile, train } from "./train-injection.ts";

type Input = Parameters<typeof scoreInjectionRisk>[0];
type Item = { source: string; kind: "attack" | "benign" | "ham"; language?: string; input: Input };
/** What the detector sees of one message: rule signals (model left out) and the learned stage's p. */
export type Seen = { source: string; kind: Item["kind"]; language?: string; rules: { name: string; weight: number }[]; p: number | null };
export type Records = { fold: string; trained_on: Record<string, number>; weights: number; items: Seen[] };

const { values } = parseArgs({
  options: {
    out: { type: "string", default: "/tmp/inj-loao" },
    folds: { type: "string" },
    all: { type: "boolean", default: false },
    shipped: { type: "boolean", default: false },
    rescore: { type: "boolean", default: false },
    "held-out": { type: "string" },
  },
});

function seen(items: Item[], model: ReturnType<typeof parseModel> | null): Seen[] {
  return items.map((x) => {
    const rules = scoreInjectionRisk(x.input, null).signals.map((s) => ({ name: s.name, weight: s.weight }));
    const text = x.input.subject === "" ? x.input.bodyClean : `${x.input.subject}\n\n${x.input.bodyClean}`;
    const p = model === null ? null : (modelVerdict(model, text, x.input.hiddenText ?? "", rules)?.p ?? null);
    return { source: x.source, kind: x.kind, language: x.language, rules, p };
  });
}

async function slice(name: string): Promise<Item[]> {
  const out: Item[] = [];
  for (const r of injectionRecords(name))
    out.push({
      source: `${name}:${r.id}`,
      kind: r.label === "injection" ? "attack" : "benign",
      language: r.language,
      input: await injectionInput(r),
    });
  return out;
}

async function fittingAndHard(): Promise<Item[]> {
  const fitting: Item[] = (await loadInputs(false)).map((x) => ({ source: x.source, kind: x.kind, input: x.input }));
  const hard = await Promise.all(
    composeInjection(300, 11, { en: HARD_LOOKALIKES_EN, intl: HARD_LOOKALIKES_INTL }).map(async (r) => ({
      source: `hard:${r.id}`,
      kind: "benign" as const,
      language: r.language,
      input: await injectionInput(r),
    })),
  );
  return [...fitting, ...hard];
}

if (import.meta.main && values.shipped) {
  // The shipped learned stage on everything, for comparison: held-out figures only while it trains
  // on none of the authors' slices (before change 12).
  const shippedOn = (JSON.parse(readFileSync(new URL("../src/comprehension/injection/model.json", import.meta.url), "utf8")) as ModelFile)
    .trained_on;
  const seenAuthors = AUTHOR_SLICES.filter((a) => shippedOn[a] !== undefined);
  if (seenAuthors.length > 0) throw new Error(`the shipped learned stage trained on ${seenAuthors.join(", ")}: use the folds`);
  mkdirSync(values.out!, { recursive: true });
  const items: Item[] = [];
  for (const fold of AUTHOR_SLICES) items.push(...(await slice(fold)));
  items.push(...(await fittingAndHard()));
  writeFileSync(
    `${values.out}/shipped.json`,
    JSON.stringify({ fold: "shipped", trained_on: {}, weights: 0, items: seen(items, shippedModel()) }),
  );
  console.log(`shipped: ${items.length} records`);
} else if (import.meta.main && values.rescore) {
  const common = await fittingAndHard();
  for (const file of readdirSync(values.out!)
    .filter((f) => f.endsWith("-model.json"))
    .sort()) {
    const fold = file.slice(0, -"-model.json".length);
    const saved = JSON.parse(readFileSync(`${values.out}/${file}`, "utf8")) as ModelFile;
    const left = fold === "all" ? [] : fold.split("+");
    const items = seen([...(await Promise.all(left.map(slice))).flat(), ...common], parseModel(saved));
    const rec: Records = { fold, trained_on: saved.trained_on, weights: Object.keys(saved.weights).length, items };
    writeFileSync(`${values.out}/${fold}.json`, JSON.stringify(rec));
    console.log(`rescored ${fold}: ${items.length} records`);
  }
} else if (import.meta.main) {
  mkdirSync(values.out!, { recursive: true });
  const started = performance.now();
  const docs = await loadDocs();
  console.log(`loaded ${docs.length} training documents, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const folds = values.folds ? values.folds.split(",") : AUTHOR_SLICES;
  const common = await fittingAndHard();
  for (const fold of folds) {
    const t0 = performance.now();
    // "train-v2+train-v3" leaves both out: the control, what retraining alone does.
    const left = fold.split("+");
    const file = train(docs, left);
    const model = parseModel(file);
    const items = seen([...(await Promise.all(left.map(slice))).flat(), ...common], model);
    const rec: Records = { fold, trained_on: file.trained_on, weights: Object.keys(file.weights).length, items };
    writeFileSync(`${values.out}/${fold}.json`, JSON.stringify(rec));
    writeFileSync(`${values.out}/${fold}-model.json`, JSON.stringify(file));
    console.log(`fold ${fold}: ${rec.weights} weights, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  if (values.all) {
    const t0 = performance.now();
    const file = train(docs, []);
    const model = parseModel(file);
    const items = seen(common, model);
    writeFileSync(
      `${values.out}/all.json`,
      JSON.stringify({ fold: "all", trained_on: file.trained_on, weights: Object.keys(file.weights).length, items }),
    );
    writeFileSync(`${values.out}/all-model.json`, JSON.stringify(file));
    for (const other of values["held-out"]?.split(",") ?? []) {
      if (AUTHOR_SLICES.includes(other)) throw new Error(`${other} is trained on; leave it out with --folds`);
      const rec: Records = {
        fold: other,
        trained_on: file.trained_on,
        weights: Object.keys(file.weights).length,
        items: seen(await slice(other), model),
      };
      writeFileSync(`${values.out}/${other}.json`, JSON.stringify(rec));
      writeFileSync(`${values.out}/${other}-model.json`, JSON.stringify(file));
    }
    console.log(`all: ${Object.keys(file.weights).length} weights, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
}
