// risk.ts: invisible characters that sanitization removed, counted in its report.
import { expect, test } from "bun:test";
import { scoreInjectionRisk } from "../../src/comprehension/injection/risk.ts";
import { WEIGHTS } from "../../src/comprehension/injection/weights.ts";

const W = WEIGHTS.invisible;

function weightOf(report: Record<string, number>, name: string): number | undefined {
  const risk = scoreInjectionRisk({ subject: "", bodyClean: "Lunch at noon?", hiddenText: "", report }, null);
  return risk.signals.find((s) => s.name === name)?.weight;
}

test("Unicode tags by count", () => {
  expect(weightOf({ unicode_tags: 20 }, "invisible_tags")).toBe(W.tagsMany);
  expect(weightOf({ unicode_tags: 5 }, "invisible_tags")).toBe(W.tagsSome);
  expect(weightOf({ unicode_tags: 1 }, "invisible_tags")).toBe(W.tagsFew);
});

test("other invisibles by count, none under four", () => {
  expect(weightOf({ other_invisible: 64 }, "invisible_payload")).toBe(W.otherMany);
  expect(weightOf({ other_invisible: 16 }, "invisible_payload")).toBe(W.otherSome);
  expect(weightOf({ other_invisible: 3 }, "invisible_payload")).toBeUndefined();
});

test("zero-width and bidi characters are common and weigh little", () => {
  expect(weightOf({ zero_width_chars: 25 }, "zero_width")).toBe(W.zeroWidth);
  expect(weightOf({ bidi_controls: 4 }, "bidi_controls")).toBe(W.bidi);
  expect(weightOf({ zero_width_chars: 19 }, "zero_width")).toBeUndefined();
});
