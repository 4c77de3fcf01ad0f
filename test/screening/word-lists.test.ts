// Word lists of the mail readers (src/comprehension/) are data: a list of words, domains or
// phrasings long enough to be curated lives in a JSON file beside the code that reads it
// (test/injection/word-lists.test.ts holds the injection detector to the stricter rule of no
// literal word set at all). Short sets that are part of an algorithm (quote marks, elided French
// articles) stay in code.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("../../src/comprehension/", import.meta.url).pathname;
const MAX_LITERALS = 16;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith(".ts") ? [path] : [];
  });
}

/** `new Set([...])` and `[...]` literals holding more than MAX_LITERALS quoted strings and nothing else. */
function longLiteralLists(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\[((?:\s*(?:\/\/[^\n]*\n\s*)*"[^"\n]*",?)+)\s*\]/g)) {
    const count = [...m[1]!.matchAll(/"[^"\n]*"/g)].length;
    if (count > MAX_LITERALS) found.push(m[0].slice(0, 60));
  }
  return found;
}

test("no file of src/comprehension/ writes a long word list as string literals", () => {
  for (const file of files(ROOT)) {
    const rel = file.slice(ROOT.length);
    expect({ file: rel, lists: longLiteralLists(readFileSync(file, "utf8")) }).toEqual({ file: rel, lists: [] });
  }
});

test("the check catches a long list and leaves a short one", () => {
  const long = `const FREEMAIL = new Set([${Array.from({ length: MAX_LITERALS + 1 }, (_, i) => `"d${i}.com"`).join(", ")}]);`;
  expect(longLiteralLists(long)).toHaveLength(1);
  expect(longLiteralLists('const QUOTES = new Set(["\\"", "«", "»"]);')).toEqual([]);
});
