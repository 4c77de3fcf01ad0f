// Stylesheets written to make the sanitizer slow or blind: matching work is bounded, and
// when the bound is reached rules apply by their subject (hiding more, never less).
import { describe, expect, test } from "bun:test";
import { sanitizeBody } from "../../src/mail/sanitize.ts";
import { cpuMsSince } from "../support/cpu-time.ts";

const LIMIT_MS = 5_000;

/** The sanitizer's CPU time on this document: a loaded machine stretches wall time, not this. */
function timed(html: string) {
  const started = process.cpuUsage();
  const r = sanitizeBody({ html }, { maxChars: 50_000 });
  return { r, ms: cpuMsSince(started) };
}

describe("hostile stylesheets", () => {
  test("thousands of searching descendant rules over deep nesting", () => {
    const rules = Array.from({ length: 5_000 }, (_, i) => `div div .n${i} *:not(.a) div{color:red}`).join("\n");
    const { r, ms } = timed(`<style>${rules}</style>${"<div>".repeat(5_000)}deep text${"</div>".repeat(5_000)}`);
    expect(ms).toBeLessThan(LIMIT_MS);
    expect(r.body_clean).toBe("deep text");
  });

  test(":has() and sibling rules over wide documents", () => {
    const rules = Array.from({ length: 100 }, (_, i) => `div:has(.q${i}){color:red} p ~ p ~ .k${i}, p:nth-child(3n+${i}){color:blue}`).join(
      "\n",
    );
    const { r, ms } = timed(`<style>${rules}</style>${"<div><p>x</p></div>".repeat(20_000)}`);
    expect(ms).toBeLessThan(LIMIT_MS);
    expect(r.body_clean?.length).toBe(50_000);
  });

  test("a hiding rule after thousands of padding rules still hides", () => {
    const padding = Array.from({ length: 6_000 }, (_, i) => `.x:not(.y${i}){color:black}`).join("\n");
    const { r } = timed(`<style>${padding}\n.x{display:none}</style><p class="x">SECRET</p><p>ok</p>`);
    expect(r.body_clean).toBe("ok");
    expect(r.hidden_text).toBe("SECRET");
  });

  test("a selector padded past the compile limit still hides", () => {
    const padded = `.x${Array.from({ length: 200 }, (_, i) => `:not(.p${i})`).join("")}`;
    const { r } = timed(`<style>${padded}{display:none}</style><p class="x">SECRET</p><p>ok</p>`);
    expect(r.body_clean).toBe("ok");
  });

  test("a hiding rule after 100,000 rules still hides", () => {
    const padding = Array.from({ length: 100_000 }, (_, i) => `.c${i} b{display:none}`).join("\n");
    const { r, ms } = timed(`<style>${padding}\n.x{display:none}</style><p class="x">SECRET</p><p>ok</p>`);
    expect(ms).toBeLessThan(LIMIT_MS);
    expect(r.body_clean).toBe("ok");
  });

  test("custom properties that double at every step stay bounded", () => {
    const vars = Array.from({ length: 30 }, (_, i) => `--v${i}: var(--v${i + 1}) var(--v${i + 1});`).join("");
    const { r, ms } = timed(`<style>:root{${vars}--v30:#fff}p{color:var(--v0)}</style>${"<p>text</p>".repeat(1_000)}`);
    expect(ms).toBeLessThan(LIMIT_MS);
    // Too long to resolve: invalid at computed-value time, so the colour stays black.
    expect(r.body_clean).toContain("text");
  });

  test("cyclic custom properties are invalid: var() takes its fallback, as in Chromium", () => {
    const { r } = timed(`<style>p{--a:var(--b);--b:var(--a)}.w{color:var(--a, #fff)}</style><p>text</p><p class="w">SECRET</p>`);
    expect(r.body_clean).toBe("text");
    expect(r.hidden_text).toBe("SECRET");
  });

  test("2 MB of junk CSS", () => {
    const { r, ms } = timed(`<style>${"a{b:c} @media screen{d e{f:g}} ".repeat(70_000)}</style><p>text</p>`);
    expect(ms).toBeLessThan(LIMIT_MS);
    expect(r.body_clean).toBe("text");
  });
});
