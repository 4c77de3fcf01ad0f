// The rules name their weights; the numbers live only in weights.ts.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { CUTOFFS, WEIGHTS } from "../../src/comprehension/injection/weights.ts";

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

// A gate written as a number: "h.weight >= 0.25", "tags >= 16", "Math.min(0.95, ...)" (a test
// against zero, "tags > 0", asks whether there is any at all, not how many).
const LITERAL_CUTOFF = /[<>]=? *(?:0?\.\d+|[1-9]\d*(?:\.\d+)?)\b|\bMath\.(?:min|max)\(\d*\.\d+/;
const GATED_FILES = ["combine.ts", "scan.ts", "risk.ts"];

test("the files that gate on weights read their cut-offs from the table", () => {
  for (const file of GATED_FILES) {
    const text = readFileSync(new URL(file, DIR), "utf8");
    expect(text).toContain("CUTOFFS");
    const offending = text
      .split("\n")
      .filter((line) => !line.trimStart().startsWith("//") && /\b(?:weight|tags|other|zw|bidi)\b/.test(line) && LITERAL_CUTOFF.test(line));
    expect({ file, offending }).toEqual({ file, offending: [] });
  }
});

test("the cut-off check catches a number written into a gate", () => {
  expect(LITERAL_CUTOFF.test("if (ADDRESSED.has(h.name) && h.weight >= 0.25 && (address === null)) address = h;")).toBe(true);
  expect(LITERAL_CUTOFF.test("const weight = address.weight >= 0.35 ? a : b;")).toBe(true);
  expect(LITERAL_CUTOFF.test("if (zw >= 20) out.push(x);")).toBe(true);
  expect(LITERAL_CUTOFF.test("const weight = Math.min(0.95, verdict.p);")).toBe(true);
  expect(LITERAL_CUTOFF.test("if (tags > 0)")).toBe(false);
  expect(LITERAL_CUTOFF.test("h.weight >= CUT.addressFloor && (address === null || h.weight > address.weight)")).toBe(false);
});

test("every cut-off is a positive number; weight floors stay below one", () => {
  for (const [family, entries] of Object.entries(CUTOFFS)) {
    for (const [name, value] of Object.entries(entries)) {
      const ok = typeof value === "number" && value > 0 && (name.endsWith("Count") ? Number.isInteger(value) : value < 1);
      expect({ family, name, ok }).toEqual({ family, name, ok: true });
    }
  }
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
