// The sharper extractors: references, grouped one-time codes, amounts with spaced thousands and
// dates with time zones, on examples of their own, and the held-out sets' figures (scripts/
// eval-extraction.ts) kept from sliding back.
import { describe, expect, test } from "bun:test";
import { score } from "../../scripts/eval-extraction.ts";
import { extractFacts } from "../../src/comprehension/understanding/extract.ts";
import { heldOut } from "../fixtures/extraction-heldout/messages.ts";
import { heldOut2 } from "../fixtures/extraction-heldout/messages-2.ts";

const facts = (subject: string, body: string) =>
  extractFacts({
    subject,
    fromAddr: "x@example.com",
    bodyClean: body,
    headers: {},
    attachments: [],
    contentTypes: ["text/plain"],
    schema: null,
  });

describe("references", () => {
  test("labelled booking, invoice, ticket and payment references, and prefixed ids", () => {
    const found = facts(
      "Trip",
      "PNR: ZK4M2Q. Invoice number 5530021. Incident #90412 opened. Transaction reference TX-88120-B. Policy PL-40021.",
    ).references;
    expect(found).toEqual([
      { kind: "booking", value: "ZK4M2Q" },
      { kind: "invoice", value: "5530021" },
      { kind: "ticket", value: "90412" },
      { kind: "reference", value: "TX-88120-B" },
      { kind: "reference", value: "PL-40021" },
    ]);
  });

  test("words, years, short numbers and tracking numbers are not references", () => {
    const found = facts(
      "Update",
      "Your booking is confirmed. See case 7 in the FAQ, ticket 2026 pricing, reference 1Z999AA10123456784 shipped with UPS, SHA-256 digests.",
    ).references;
    expect(found).toEqual([]);
  });
});

describe("grouped codes", () => {
  test("codes written with dashes, spaces, single digits or letter groups are typed without them", () => {
    expect(facts("Code", "Your login code: 77-41-09").verification_codes).toEqual(["774109"]);
    expect(facts("Code", "One-time PIN\n\n1 0 5 7 2 2").verification_codes).toEqual(["105722"]);
    expect(facts("Code", "Verification code Q2W-7PX").verification_codes).toEqual(["Q2W7PX"]);
    expect(facts("Code", "Door code 4410 9921").verification_codes).toEqual(["44109921"]);
  });

  test("dates, phone numbers and amounts near the word code stay what they are", () => {
    const found = facts("Code", "The code expires on 2026-06-01. Call +44 20 7946 0000 or pay 12 500 EUR.");
    expect(found.verification_codes).toEqual([]);
    expect(found.amounts).toContainEqual(expect.objectContaining({ currency: "EUR", value: 12500 }));
  });
});

describe("dates with zones", () => {
  test("abbreviations, UTC offsets and IANA names (with daylight saving time for the date)", () => {
    expect(facts("x", "Starts 2026-07-01 09:30 PDT").dates).toEqual(["2026-07-01T09:30-07:00"]);
    expect(facts("x", "on June 3, 2026 at 18:00 UTC+5:30").dates).toEqual(["2026-06-03T18:00+05:30"]);
    expect(facts("x", "2026-01-15 10:00 America/New_York and 2026-07-15 10:00 America/New_York").dates).toEqual([
      "2026-01-15T10:00-05:00",
      "2026-07-15T10:00-04:00",
    ]);
    expect(facts("x", "deadline 2026-02-02T23:59Z").dates).toEqual(["2026-02-02T23:59+00:00"]);
  });
});

describe("held-out figures", () => {
  test("the set written before the change: every value found, nothing extra", () => {
    const { total } = score(heldOut);
    expect(total.tp / (total.tp + total.fn)).toBeGreaterThanOrEqual(0.95);
    expect(total.tp / (total.tp + total.fp)).toBeGreaterThanOrEqual(0.95);
  });

  test("the set written after the extractors were frozen: at least 85% precision and recall", () => {
    const { total } = score(heldOut2);
    expect(total.tp / (total.tp + total.fn)).toBeGreaterThanOrEqual(0.85);
    expect(total.tp / (total.tp + total.fp)).toBeGreaterThanOrEqual(0.85);
  });
});
