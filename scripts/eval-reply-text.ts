// Reply-text accuracy on test/fixtures/reply-text/cases.ts: ours beside the npm libraries that do
// this (email-reply-parser, node-email-reply-parser, planer). A case counts when the output equals
// the expected text after trailing spaces and blank-line runs are normalized. Every library reads
// the sanitized text the service stores (body_clean); ours also gets the raw HTML of HTML-only mail.
//
//   npx bun scripts/eval-reply-text.ts [--heldout] [--verbose]   (--heldout: the cases written after our rules were frozen)
import EmailReplyParser from "email-reply-parser";
import nodeEmailReplyParser from "node-email-reply-parser";
// @ts-expect-error no type declarations
import planer from "planer";
import { replyText } from "../src/mail/reply-text.ts";
import { sanitizeBody } from "../src/mail/sanitize.ts";
import { replyCases as devCases } from "../test/fixtures/reply-text/cases.ts";
import { heldOutReplyCases } from "../test/fixtures/reply-text/heldout.ts";

export const normalize = (text: string | null) =>
  (text ?? "")
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t\u00a0]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();

export function stored(format: "text" | "html", body: string): { bodyClean: string; bodyRaw: string } {
  const sanitized = sanitizeBody(format === "html" ? { html: body } : { text: body }, { maxChars: 100_000 });
  return { bodyClean: sanitized.body_clean ?? "", bodyRaw: sanitized.body_raw ?? "" };
}

const candidates: [string, (input: { bodyClean: string; bodyRaw: string }) => string][] = [
  ["ours (src/mail/reply-text.ts)", (input) => replyText({ ...input, maxChars: 100_000 }) ?? ""],
  ["email-reply-parser 2.3", (input) => new EmailReplyParser().parseReply(input.bodyClean)],
  ["node-email-reply-parser 0.1", (input) => nodeEmailReplyParser(input.bodyClean).getVisibleText()],
  ["node-email-reply-parser 0.1 (aggressive)", (input) => nodeEmailReplyParser(input.bodyClean).getVisibleText({ aggressive: true })],
  ["planer 1.2 (plain)", (input) => planer.extractFromPlain(input.bodyClean)],
];

if (import.meta.main) {
  const verbose = process.argv.includes("--verbose");
  const replyCases = process.argv.includes("--heldout") ? heldOutReplyCases : devCases;
  console.log(
    `| Parser | all (${replyCases.length}) | plain text (${replyCases.filter((c) => c.format === "text").length}) | HTML-only (${replyCases.filter((c) => c.format === "html").length}) |`,
  );
  console.log("|---|---|---|---|");
  for (const [name, parse] of candidates) {
    const right = { text: 0, html: 0 };
    const wrong: string[] = [];
    for (const testCase of replyCases) {
      let output: string;
      try {
        output = parse(stored(testCase.format, testCase.body));
      } catch (error) {
        output = `(threw ${(error as Error).message})`;
      }
      if (normalize(output) === normalize(testCase.expected)) right[testCase.format]++;
      else wrong.push(`${testCase.name}: ${JSON.stringify(normalize(output)).slice(0, 120)}`);
    }
    const all = right.text + right.html;
    const pct = (n: number, d: number) => `${n}/${d} (${Math.round((100 * n) / d)}%)`;
    const texts = replyCases.filter((c) => c.format === "text").length;
    console.log(`| ${name} | ${pct(all, replyCases.length)} | ${pct(right.text, texts)} | ${pct(right.html, replyCases.length - texts)} |`);
    if (verbose) for (const line of wrong) console.log(`    ✗ ${line}`);
  }
}
