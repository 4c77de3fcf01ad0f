// The injection detector's word lists are data: each file reads its words from a JSON file beside it, and
// no list of string literals creeps back into the code. Sets of our own signal names stay in code.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";

const DIR = new URL("../../src/comprehension/injection/", import.meta.url);
// rule file → the data file holding its words
const WORD_FILES: Record<string, string> = {
  "address.ts": "address-words.json",
  "combine.ts": "combine-words.json",
  "decode.ts": "decode-words.json",
  "exfil.ts": "exfil-words.json",
  "features.ts": "features-words.json",
  "fraud.ts": "fraud-words.json",
  "override.ts": "override-words.json",
  "persona.ts": "persona-words.json",
  "scan.ts": "scan-words.json",
  "steer.ts": "steer-words.json",
  "structure.ts": "structure-words.json",
};
// Sets that name our own signals, not words of the mail: they belong beside the code that emits them.
const SIGNAL_SETS = new Set(["ACTIONS", "ADDRESSED"]);
// `const NAME = new Set([` followed (after any comments) by a string literal.
const LITERAL_SET = /\bconst ([A-Z_0-9]+) = new Set(?:<[^>]*>)?\(\[\s*(?:\/\/[^\n]*\s*)*["'`]/g;

function literalSets(text: string): string[] {
  return [...text.matchAll(LITERAL_SET)].map((m) => m[1]!).filter((name) => !SIGNAL_SETS.has(name));
}

test("no rule file writes a word list as string literals", () => {
  for (const file of Object.keys(WORD_FILES)) {
    const text = readFileSync(new URL(file, DIR), "utf8");
    expect({ file, literal: literalSets(text) }).toEqual({ file, literal: [] });
  }
});

test("the check catches a word list written into code", () => {
  expect(literalSets('const MODALS = new Set(["must", "should"]);')).toEqual(["MODALS"]);
  expect(literalSets('const PAY = new Set([\n  "pay",\n  "wire",\n]);')).toEqual(["PAY"]);
  expect(literalSets('const X = new Set<string>([\n  // why\n  "a",\n]);')).toEqual(["X"]);
  expect(literalSets("const MODALS = new Set(COMBINE_WORDS.MODALS);")).toEqual([]);
  expect(literalSets('const ADDRESSED = new Set(["ai_addressed", "persona_shift"]);')).toEqual([]);
});

test("every list in a data file is read by its rule file and holds folded words", () => {
  for (const [file, json] of Object.entries(WORD_FILES)) {
    const text = readFileSync(new URL(file, DIR), "utf8");
    expect(text).toContain(`from "./${json}" with { type: "json" }`);
    const data = JSON.parse(readFileSync(new URL(json, DIR), "utf8")) as Record<string, unknown>;
    expect(typeof data.about).toBe("string");
    for (const [name, words] of Object.entries(data)) {
      if (name === "about") continue;
      const used = new RegExp(`\\.${name}\\b`).test(text);
      const ok =
        Array.isArray(words) && words.length > 0 && words.every((w) => typeof w === "string" && w === w.toLowerCase() && !/\s/.test(w));
      expect({ json, name, used, ok }).toEqual({ json, name, used: true, ok: true });
    }
  }
});
