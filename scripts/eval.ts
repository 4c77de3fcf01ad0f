// `bun run eval`: every judgement figure in one report.
//   1. modern spam, blind slice (test/fixtures/spam-modern/blind): precision, recall, F1 and
//      ham flagged at the default start (our classifier at its default threshold), and with a
//      scanner when one is configured (SPAMD_ADDRESS or --spamd-address), or with
//      --with-spamassassin a private `spamd -L` (shipped rules, no network tests): spamd alone,
//      and spamd or ours as screening combines them;
//   2. SpamAssassin held-out groups (easy-ham-2, spam-2, hard-ham-1), ours at the default;
//   3. injection, blind slice (test/fixtures/injection-modern/blind): precision, recall, FPR;
//      and the training slices the combiner was fitted on (in-sample, for comparison);
//   1b, 3b. the second blind slices (spam-modern/blind-v2, injection-modern/blind-v2), written by
//      an author who never read this code, when they are there: the same aggregates and the
//      counts flagged per label and language;
//   1c. the development slice spam-modern/dev (scams with no spam wording, never trained on);
//   4. sender risk: scripts/eval-sender-risk.ts, when that file exists;
//   5. classification: where its rule weights come from (classify-weights.json);
//   6. extraction: scripts/eval-extraction.ts, as before.
// The blind slices are scored once per model change and the scores recorded in
// docs/judgement.md; only aggregates are printed, never the blind messages.
//
//   bun run eval [--with-spamassassin] [--skip-spamassassin-corpus] [--detail]
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { COMBINER } from "../src/comprehension/injection/combiner.ts";
import { shippedDocumentModel } from "../src/comprehension/injection/document.ts";
import { checkWithSpamd } from "../src/comprehension/scanners/spamd.ts";
import { classifySpam, loadSpamModel } from "../src/comprehension/spam/classifier.ts";
import { CLASSIFY_WEIGHTS, classifyMessage, WEIGHTED_RULES } from "../src/comprehension/understanding/classify.ts";
import { loadConfig } from "../src/config.ts";
import { DEV, HELD_OUT } from "../test/fixtures/comprehension-messages.ts";
import { composeInjection } from "./corpus/compose-injection.ts";
import { HARD_LOOKALIKES_EN, HARD_LOOKALIKES_INTL } from "./corpus/fragments-injection-hard.ts";
import { toRaw } from "./corpus/mail-file.ts";
import { type BinaryScore, formatScore, injectionRecords, scoreInjection, scoreSpam, spamRecords } from "./eval-modern.ts";
import { COMPOSED as COMPOSED_INJECTION } from "./fit-injection.ts";
import { HELD_OUT_GROUPS, loadCorpus } from "./train-spam.ts";

const { values: args } = parseArgs({
  options: {
    "with-spamassassin": { type: "boolean", default: false },
    "spamd-address": { type: "string" },
    "skip-spamassassin-corpus": { type: "boolean", default: false },
    detail: { type: "boolean", default: false },
  },
});

const config = loadConfig();
const model = await loadSpamModel(config.screening.spamModelPath ?? undefined);
const threshold = config.screening.spamClassifierThreshold ?? model.threshold;
const started = performance.now();

console.log(`# Judgement evaluation\n\nspam model threshold ${model.threshold}; default screening threshold ${threshold}\n`);

console.log("## Spam: modern blind slice");
const blind = spamRecords("blind");
const spam = await scoreSpam(blind, threshold);
console.log(formatScore("default start (our classifier)", spam.score));
if (args.detail) for (const [k, [a, b]] of [...spam.byFamily].sort()) console.log(`  ${k}: ${a}/${b} flagged`);
console.log(formatScore("hand-written training slice (in-sample)", (await scoreSpam(spamRecords("train"), threshold)).score));
if (existsSync(fixture("spam-modern/blind-v2"))) {
  console.log("\n## Spam: blind slice v2 (another author)");
  const v2 = await scoreSpam(spamRecords("blind-v2"), threshold);
  console.log(formatScore("default start (our classifier)", v2.score));
  console.log(perKey("flagged per label/language", v2.byLanguage));
}
if (existsSync(fixture("spam-modern/dev"))) {
  // Scams with no spam wording beside genuine twins (author qf): kept out of training because
  // their text alone cannot tell them apart, so they show where a content model stops.
  console.log("\n## Spam: development slice (no spam wording; never trained on)");
  const dev = await scoreSpam(spamRecords("dev"), threshold);
  console.log(formatScore("default start (our classifier)", dev.score));
  console.log(perKey("flagged per label/family", dev.byFamily));
}

let spamdAddress = args["spamd-address"] ?? config.screening.spamdAddress;
let ownSpamd: ReturnType<typeof Bun.spawn> | null = null;
if (args["with-spamassassin"] && !spamdAddress) {
  // A private spamd with SpamAssassin's shipped rules and no network tests (-L), as the issue's
  // comparison ran it; its Bayes is whatever the local user's database holds (none by default).
  const port = 20000 + Math.floor(Math.random() * 20000);
  ownSpamd = Bun.spawn(
    [
      "/usr/sbin/spamd",
      "-L",
      "--listen",
      `127.0.0.1:${port}`,
      "--max-children",
      "2",
      "--syslog",
      "stderr",
      ...(process.getuid?.() === 0 ? ["-u", "nobody"] : []),
    ],
    {
      stdout: "ignore",
      stderr: "ignore",
    },
  );
  spamdAddress = `127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const probe = Bun.spawnSync(["spamc", "-d", "127.0.0.1", "-p", String(port), "-K"]);
    if (probe.exitCode === 0) break;
    await Bun.sleep(500);
  }
}
if (args["with-spamassassin"] || spamdAddress) {
  if (!spamdAddress) console.log("with a scanner: no spamd address (SPAMD_ADDRESS or --spamd-address); skipped");
  else {
    const s: BinaryScore = { n: 0, pos: 0, neg: 0, tp: 0, fp: 0, fn: 0, tn: 0, msPerMessage: 0 };
    const edgeOnly: BinaryScore = { ...s };
    let ms = 0;
    for (const r of blind) {
      const raw = new TextEncoder().encode(toRaw(r));
      const t0 = performance.now();
      const edge = await checkWithSpamd(spamdAddress, raw, 60_000).catch(() => ({ spam: false }));
      ms += performance.now() - t0;
      const ours = (await classifySpam(raw, model, { receivedAt: new Date("2026-05-13T09:31:00Z") })).score >= threshold;
      for (const [row, flagged] of [
        [s, edge.spam || ours],
        [edgeOnly, edge.spam],
      ] as const) {
        row.n++;
        if (r.label === "spam") row.pos++, flagged ? row.tp++ : row.fn++;
        else row.neg++, flagged ? row.fp++ : row.tn++;
      }
    }
    edgeOnly.msPerMessage = s.msPerMessage = ms / blind.length;
    console.log(formatScore(`spamd at ${spamdAddress} alone`, edgeOnly));
    console.log(formatScore("with a scanner (spamd or ours, as screening combines them)", s));
  }
}
if (ownSpamd) {
  ownSpamd.kill("SIGTERM");
  await ownSpamd.exited;
}

if (!args["skip-spamassassin-corpus"]) {
  console.log("\n## Spam: SpamAssassin held-out groups");
  const messages = await loadCorpus(HELD_OUT_GROUPS);
  const all: BinaryScore = { n: 0, pos: 0, neg: 0, tp: 0, fp: 0, fn: 0, tn: 0, msPerMessage: 0 };
  const perGroup = new Map<string, [number, number]>();
  let ms = 0;
  for (const m of messages) {
    const t0 = performance.now();
    const flagged = (await classifySpam(m.raw, model)).score >= threshold;
    ms += performance.now() - t0;
    all.n++;
    if (m.spam) all.pos++, flagged ? all.tp++ : all.fn++;
    else all.neg++, flagged ? all.fp++ : all.tn++;
    const c = perGroup.get(m.group) ?? [0, 0];
    c[0] += flagged ? 1 : 0;
    c[1]++;
    perGroup.set(m.group, c);
  }
  all.msPerMessage = ms / messages.length;
  console.log(formatScore(`held-out (${HELD_OUT_GROUPS.join(", ")})`, all));
  console.log(`  flagged per group: ${[...perGroup].map(([g, [a, b]]) => `${g} ${a}/${b}`).join(", ")}`);
  console.log("  (scripts/eval-spam.ts prints the same with SpamAssassin and Rspamd side by side)");
}

console.log("\n## Injection: modern blind slice");
const inj = await scoreInjection(injectionRecords("blind"));
console.log(formatScore("injection detector", inj.score, "benign flagged"));
if (args.detail) for (const [k, [a, b]] of [...inj.byLanguage].sort()) console.log(`  ${k}: ${a}/${b} flagged`);

if (existsSync(fixture("injection-modern/blind-v2"))) {
  console.log("\n## Injection: blind slice v2 (another author)");
  const v2 = await scoreInjection(injectionRecords("blind-v2"));
  console.log(formatScore("injection detector", v2.score, "benign flagged"));
  console.log(perKey("flagged per label/language", v2.byLanguage));
}

// train-v7 (author ql, written for change 11) and train-v14 (author qs, for change 12) are trained
// on by no stage: held out like the blind slices, but development sets once a change is tuned on them.
for (const [slice, author] of [
  ["train-v7", "ql"],
  ["train-v14", "qs"],
]) {
  if (!existsSync(fixture(`injection-modern/${slice}`))) continue;
  console.log(`\n## Injection: held-out slice ${slice} (author ${author}, trained on by no stage)`);
  const held = await scoreInjection(injectionRecords(slice!));
  console.log(formatScore("injection detector", held.score, "benign flagged"));
}

console.log("\n## Injection: training slices (the combiner's fit data; in-sample)");
for (const [name, records] of [
  ["modern hand-written training slice", injectionRecords("train")],
  [
    `composed training slice (${COMPOSED_INJECTION.n}, seed ${COMPOSED_INJECTION.seed})`,
    composeInjection(COMPOSED_INJECTION.n, COMPOSED_INJECTION.seed),
  ],
] as const) {
  console.log(formatScore(name, (await scoreInjection([...records])).score, "benign flagged"));
}
// Harder look-alikes (quoted attack strings, bug reports with chat tokens, assistant setup notes),
// not fitted on: a development figure for the false alarms the blind slice may hold.
const hard = (await scoreInjection(composeInjection(300, 11, { en: HARD_LOOKALIKES_EN, intl: HARD_LOOKALIKES_INTL }))).score;
console.log(
  `hard look-alikes (composed 300, seed 11; not in the fit): benign flagged ${((100 * hard.fp) / hard.neg).toFixed(1)}% (${hard.fp}/${hard.neg})`,
);
console.log(`combiner: ${COMBINER.method}`);
const stage = shippedDocumentModel().stack;
console.log(
  `document stage: k ${stage.k}, bounds -${stage.down}/+${stage.up}, margin ${stage.margin}, sure ${stage.sure}, cut ${stage.cut} (scripts/train-injection-document.ts)`,
);

console.log("\n## Sender risk");
const senderRisk = new URL("./eval-sender-risk.ts", import.meta.url).pathname;
if (existsSync(senderRisk)) await run([process.execPath, senderRisk]);
else console.log("scripts/eval-sender-risk.ts is not there yet; nothing to report");

console.log("\n## Classification");
for (const [name, set] of [
  ["dev", DEV],
  ["held-out", HELD_OUT],
] as const) {
  const right = set.filter((m) => classifyMessage(m.input).label === m.label).length;
  console.log(`classification accuracy, ${name}: ${(right / set.length).toFixed(3)} (${right}/${set.length})`);
}
console.log(
  `${WEIGHTED_RULES.length} rule weights read from src/comprehension/understanding/classify-weights.json ` +
    `(set by hand, not fitted: the dev and held-out sets, 104 messages, are too few for 42 weights); other floor ${CLASSIFY_WEIGHTS.otherFloor}`,
);

console.log("\n## Extraction");
await run([process.execPath, new URL("./eval-extraction.ts", import.meta.url).pathname]);

console.log(`\n(total ${((performance.now() - started) / 1000).toFixed(0)} s)`);

function fixture(path: string): string {
  return new URL(`../test/fixtures/${path}`, import.meta.url).pathname;
}

// "benign/de 0/3, injection/de 4/5, ...": counts only, one line.
function perKey(title: string, counts: Map<string, [number, number]>): string {
  return `  ${title}: ${[...counts]
    .sort()
    .map(([k, [a, b]]) => `${k} ${a}/${b}`)
    .join(", ")}`;
}

async function run(cmd: string[]): Promise<void> {
  const proc = Bun.spawn(cmd, { stdout: "inherit", stderr: "inherit" });
  const code = await proc.exited;
  if (code !== 0) console.log(`(${cmd.slice(1).join(" ")} exited ${code})`);
}
