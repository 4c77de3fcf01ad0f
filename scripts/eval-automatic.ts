// Precision and recall of comprehension.automatic (src/comprehension/understanding/automatic.ts) on
// the labelled set in test/fixtures/automatic/: automatic replies (out-of-office, auto-replies,
// bounces, helpdesk acknowledgements, list notices, unmonitored mailboxes) and replies people
// wrote, several of them mentioning being away, in 11 languages. The detector was tuned on
// tune.jsonl only; held-out.jsonl was written beside it and is only measured.
//
//   bun scripts/eval-automatic.ts [--errors]     (--errors lists the tuning set's mistakes)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { detectAutomatic } from "../src/comprehension/understanding/automatic.ts";

export type Labelled = {
  id: string;
  lang: string;
  label: string | null;
  from: string;
  subject: string;
  headers: Record<string, string>;
  body: string;
};

export type Score = { n: number; tp: number; fp: number; fn: number; tn: number; kindRight: number; precision: number; recall: number };

const dir = join(import.meta.dirname, "../test/fixtures/automatic");

export function loadSet(name: "tune" | "held-out"): Labelled[] {
  return readFileSync(join(dir, `${name}.jsonl`), "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Labelled);
}

export function predict(row: Labelled) {
  const contentType = row.headers["content-type"] ?? "";
  return detectAutomatic({
    subject: row.subject,
    fromAddr: row.from,
    bodyClean: row.body,
    headers: row.headers,
    contentTypes: contentType ? [contentType.split(";")[0]!.trim()] : [],
  });
}

export function score(rows: Labelled[]): Score & { mistakes: string[] } {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  let kindRight = 0;
  const mistakes: string[] = [];
  for (const row of rows) {
    const found = predict(row);
    if (row.label && found) {
      tp++;
      if (found.kind === row.label) kindRight++;
      else mistakes.push(`${row.id} (${row.lang}) kind ${found.kind}, labelled ${row.label}`);
    } else if (row.label && !found) {
      fn++;
      mistakes.push(`${row.id} (${row.lang}) missed ${row.label}: ${row.subject}`);
    } else if (!row.label && found) {
      fp++;
      mistakes.push(`${row.id} (${row.lang}) person's mail taken as ${found.kind}: ${found.evidence.join("; ")}`);
    } else tn++;
  }
  return {
    n: rows.length,
    tp,
    fp,
    fn,
    tn,
    kindRight,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
    mistakes,
  };
}

if (import.meta.main) {
  for (const name of ["tune", "held-out"] as const) {
    const result = score(loadSet(name));
    console.log(
      `${name.padEnd(8)} n=${result.n} (automatic ${result.tp + result.fn}, human ${result.fp + result.tn}): ` +
        `precision ${result.precision.toFixed(3)}, recall ${result.recall.toFixed(3)}, ` +
        `kind right ${result.kindRight}/${result.tp}, false positives ${result.fp}, missed ${result.fn}`,
    );
    if (name === "tune" && process.argv.includes("--errors")) for (const m of result.mistakes) console.log(`  ${m}`);
  }
}
