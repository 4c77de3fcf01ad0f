// reply_text: every case of test/fixtures/reply-text (real client formats, several languages,
// plain and HTML) gives the text its author added; the libraries compared are in
// scripts/eval-reply-text.ts. Also: the worker stores it, and hostile input cannot stall it.
import { describe, expect, test } from "bun:test";
import { normalize, stored } from "../../scripts/eval-reply-text.ts";
import { replyText, replyTextOfPlain } from "../../src/mail/reply-text.ts";
import { replyCases } from "../fixtures/reply-text/cases.ts";
import { heldOutReplyCases } from "../fixtures/reply-text/heldout.ts";
import { cpuMsSince } from "../support/cpu-time.ts";

describe("reply text of real client formats", () => {
  for (const testCase of [...replyCases, ...heldOutReplyCases]) {
    test(`${testCase.format}: ${testCase.name}`, () => {
      expect(normalize(replyText({ ...stored(testCase.format, testCase.body), maxChars: 100_000 }))).toBe(normalize(testCase.expected));
    });
  }
});

describe("edges", () => {
  test("null stays null; a body that is only a quote gives an empty reply", () => {
    expect(replyTextOfPlain(null)).toBeNull();
    expect(replyTextOfPlain("> all quoted\n> here")).toBe("");
  });

  test("a huge body of quote-like lines is handled in linear time", () => {
    for (const body of [
      "x wrote:\n".repeat(20_000) + "> q\n".repeat(20_000),
      "x wrote:\n> q\nanswer\n".repeat(20_000),
      "> q\nanswer\n".repeat(30_000),
      "> q\n".repeat(30_000) + "answer",
    ]) {
      const started = process.cpuUsage();
      replyTextOfPlain(body);
      expect(cpuMsSince(started)).toBeLessThan(2000);
    }
  });
});
