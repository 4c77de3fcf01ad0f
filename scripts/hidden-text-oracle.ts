// `npm run oracle -- [count] [seed]`: renders `count` generated hiding and look-alike documents
// (default 2,000, seed 1) in headless Chromium and compares what a person sees with the
// sanitizer's body_clean. Prints the agreement per text and per document, and every
// disagreement with its technique (the generator's name for it) and the document.

import { launchChromium } from "../test/support/browser.ts";
import { generateCorpus } from "../test/support/hiding-corpus.ts";
import { newOraclePage, runOracle } from "../test/support/visibility-oracle.ts";

const count = Number(process.argv[2] ?? 2_000);
const seed = Number(process.argv[3] ?? 1);
if (!Number.isInteger(count) || count <= 0 || !Number.isInteger(seed)) {
  console.error("usage: npm run oracle -- [count] [seed]");
  process.exit(2);
}

const headless = await launchChromium();
try {
  const page = await newOraclePage(headless);
  const started = performance.now();
  const docs = generateCorpus(seed, count);
  const result = await runOracle(page, docs, (done) => {
    if (done % 250 === 0) console.error(`${done}/${count} documents`);
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(2)}%`;
  console.log(`documents: ${result.docs} (seed ${seed}), texts: ${result.texts}, ${seconds}s`);
  console.log(`hidden by the browser: ${result.hiddenByBrowser}; differing from the generator's intent: ${result.unintended}`);
  console.log(`agreement per text: ${result.agreedTexts}/${result.texts} = ${pct(result.agreedTexts, result.texts)}`);
  console.log(`agreement per document: ${result.agreedDocs}/${result.docs} = ${pct(result.agreedDocs, result.docs)}`);
  const byTechnique = new Map<string, number>();
  for (const d of result.disagreements) {
    const key = `${d.technique}: browser ${d.browser ? "shows" : "hides"}, sanitizer ${d.sanitizer ? "keeps" : "removes"}`;
    byTechnique.set(key, (byTechnique.get(key) ?? 0) + 1);
  }
  console.log(`disagreements: ${result.disagreements.length}`);
  for (const [key, n] of [...byTechnique].sort((a, b) => b[1] - a[1])) console.log(`  ${n} × ${key}`);
  for (const d of result.disagreements) {
    console.log(
      `\n--- doc ${d.doc}, ${d.token} (${d.technique}): browser ${d.browser ? "shows" : "hides"}, sanitizer ${d.sanitizer ? "keeps" : "removes"}`,
    );
    console.log(d.html);
  }
} finally {
  await headless.close();
}
process.exit(0);
