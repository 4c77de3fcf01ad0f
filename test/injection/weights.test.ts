// The rules name their weights; the numbers live only in weights.ts.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { WEIGHTS } from "../../src/comprehension/injection/weights.ts";

const DIR = new URL("../../src/comprehension/injection/", import.meta.url);
const RULE_FILES = [
  "address.ts",
  "combine.ts",
  "exfil.ts",
  "fraud.ts",
  "override.ts",
  "persona.ts",
  "risk.ts",
  "scan.ts",
  "steer.ts",
  "structure.ts",
];
// A number given as a signal's weight: add("name", 0.3, ...), weight: 0.3, or "? 0.3 :" inside one.
const LITERAL_WEIGHT = /\badd\("[a-z_]+",[^,]*\b\d*\.\d+|\bweight: [^,}]*\b\d*\.\d+|\bw [+*]?= \d*\.\d+/;

test("every rule file reads its weights from the table", () => {
  expect(
    readdirSync(DIR)
      .filter((f) => RULE_FILES.includes(f))
      .sort(),
  ).toEqual([...RULE_FILES].sort());
  for (const file of RULE_FILES) {
    const text = readFileSync(new URL(file, DIR), "utf8");
    expect(text).toContain('from "./weights.ts"');
    const offending = text.split("\n").filter((line) => !line.trimStart().startsWith("//") && LITERAL_WEIGHT.test(line));
    expect({ file, offending }).toEqual({ file, offending: [] });
  }
});

test("the check catches a number written into a rule", () => {
  expect(LITERAL_WEIGHT.test('v.add("secrecy", 0.35, i, k);')).toBe(true);
  expect(LITERAL_WEIGHT.test('hits.push({ name: "x", weight: 0.2, start })')).toBe(true);
  expect(LITERAL_WEIGHT.test("w += 0.1;")).toBe(true);
  expect(LITERAL_WEIGHT.test('v.add("secrecy", W.steer.betweenUs, i);')).toBe(false);
});

test("every weight is a probability-like number", () => {
  for (const [family, entries] of Object.entries(WEIGHTS)) {
    for (const [name, value] of Object.entries(entries)) {
      const limit = name.startsWith("times") && family === "context" && name === "timesHidden" ? 2 : 1;
      expect({ family, name, ok: typeof value === "number" && value > 0 && value <= limit }).toEqual({ family, name, ok: true });
    }
  }
});

test("the fitted combiner: non-negative weights, and a signal it never saw keeps its rule's meaning", async () => {
  const { COMBINER, combinedScore, evidence } = await import("../../src/comprehension/injection/combiner.ts");
  for (const [name, w] of Object.entries(COMBINER.weights)) expect({ name, ok: w >= 0 }).toEqual({ name, ok: true });
  // An unseen signal weighs the prior: alone at 0.5 it sits at the cut-off, as in the noisy-OR.
  expect(combinedScore(evidence([{ name: "never_seen", weight: 0.51 }]))).toBeGreaterThanOrEqual(COMBINER.threshold);
  expect(combinedScore(evidence([{ name: "never_seen", weight: 0.45 }]))).toBeLessThan(COMBINER.threshold);
  expect(combinedScore(evidence([]))).toBe(0);
});
