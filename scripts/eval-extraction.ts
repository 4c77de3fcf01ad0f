// Extraction precision and recall on the held-out set (test/fixtures/extraction-heldout): each
// message goes through the sanitizer (HTML) and extractFacts; the facts are flattened to
// "kind:value" and compared with the expected values. Prints totals and per kind.
//
//   npx bun scripts/eval-extraction.ts [--set 1|2] [--verbose]   (set 2 was written after the extractors were frozen)
import { extractFacts, type Facts } from "../src/comprehension/understanding/extract.ts";
import { sanitizeBody } from "../src/mail/sanitize.ts";
import { type HeldOutMessage, heldOut } from "../test/fixtures/extraction-heldout/messages.ts";
import { heldOut2 } from "../test/fixtures/extraction-heldout/messages-2.ts";

export function flatten(facts: Facts): string[] {
  const refs = [...facts.order_numbers, ...((facts as { references?: { value: string }[] }).references ?? []).map((r) => r.value)];
  return [
    ...facts.verification_codes.map((code) => `code:${code}`),
    ...refs.map((ref) => `ref:${ref.replace(/^#/, "")}`),
    ...facts.tracking_numbers.map((t) => `tracking:${t.number}`),
    ...facts.amounts.map((a) => `amount:${a.currency}:${a.value}`),
    ...facts.dates.map((d) => `date:${d}`),
    ...[...facts.sign_in_links, ...facts.password_reset_links, ...facts.unsubscribe_links].map((link) => `link:${link}`),
  ];
}

export function predict(message: HeldOutMessage): string[] {
  const body = message.html ? (sanitizeBody({ html: message.html }, { maxChars: 100_000 }).body_clean ?? "") : (message.text ?? "");
  const facts = extractFacts({
    subject: message.subject,
    fromAddr: message.from,
    bodyClean: body,
    headers: {},
    attachments: [],
    contentTypes: ["text/plain"],
    schema: null,
  });
  return [...new Set(flatten(facts))];
}

export function score(set: HeldOutMessage[] = heldOut) {
  const perKind = new Map<string, { tp: number; fp: number; fn: number }>();
  const bump = (value: string, field: "tp" | "fp" | "fn") => {
    const kind = value.split(":")[0]!;
    const entry = perKind.get(kind) ?? { tp: 0, fp: 0, fn: 0 };
    entry[field]++;
    perKind.set(kind, entry);
  };
  const misses: string[] = [];
  for (const message of set) {
    const predicted = new Set(predict(message));
    const expected = new Set(message.expected);
    for (const value of predicted) bump(value, expected.has(value) ? "tp" : "fp");
    for (const value of expected) if (!predicted.has(value)) bump(value, "fn");
    const fp = [...predicted].filter((v) => !expected.has(v));
    const fn = [...expected].filter((v) => !predicted.has(v));
    if (fp.length || fn.length) misses.push(`${message.name}: missed ${JSON.stringify(fn)} extra ${JSON.stringify(fp)}`);
  }
  const total = { tp: 0, fp: 0, fn: 0 };
  for (const entry of perKind.values()) for (const k of ["tp", "fp", "fn"] as const) total[k] += entry[k];
  return { total, perKind, misses };
}

if (import.meta.main) {
  const set = process.argv.includes("2") && process.argv.includes("--set") ? heldOut2 : heldOut;
  const { total, perKind, misses } = score(set);
  const ratio = (a: number, b: number) => (b === 0 ? "—" : `${((100 * a) / b).toFixed(1)}%`);
  console.log(`held-out: ${set.length} messages, ${total.tp + total.fn} expected values`);
  console.log("| kind | precision | recall | tp | fp | fn |\n|---|---|---|---|---|---|");
  for (const [kind, e] of [...perKind.entries()].sort())
    console.log(`| ${kind} | ${ratio(e.tp, e.tp + e.fp)} | ${ratio(e.tp, e.tp + e.fn)} | ${e.tp} | ${e.fp} | ${e.fn} |`);
  console.log(
    `| all | ${ratio(total.tp, total.tp + total.fp)} | ${ratio(total.tp, total.tp + total.fn)} | ${total.tp} | ${total.fp} | ${total.fn} |`,
  );
  if (process.argv.includes("--verbose")) for (const line of misses) console.log(`  ${line}`);
}
