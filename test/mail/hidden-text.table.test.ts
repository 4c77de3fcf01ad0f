// The table of hiding techniques and look-alikes (test/support/hiding-table.ts): a hidden text
// (HIDDENn) must be gone from body_clean and reported (counted in hidden_elements, its text in
// hidden_text); a shown text (SHOWNn) must stay.
import { describe, expect, test } from "bun:test";
import { sanitizeBody } from "../../src/mail/sanitize.ts";
import { ROWS, wordsOf } from "../support/hiding-table.ts";

describe("hiding techniques and look-alikes", () => {
  test("the table holds the issue's examples and at least 30 more", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(8 + 30);
    expect(new Set(ROWS.map(([name]) => name)).size).toBe(ROWS.length);
  });

  for (const [name, html] of ROWS) {
    test(name, () => {
      const r = sanitizeBody({ html }, { maxChars: 100_000 });
      const hidden = wordsOf(html, "HIDDEN");
      const shown = wordsOf(html, "SHOWN");
      for (const word of shown) expect(r.body_clean).toContain(word);
      for (const word of hidden) {
        expect(r.body_clean).not.toContain(word);
        expect(r.hidden_text).toContain(word);
      }
      expect(r.report.hidden_elements).toBe(hidden.length);
    });
  }
});
