// Identifiers an agent quotes back or looks up: booking and reservation references, invoice
// numbers, ticket and case numbers, payment and other labelled references, and prefixed ids
// such as RA-558201. Order numbers have their own extractor (extract.ts). Like every extractor
// here, quantifiers are bounded and a match starts only at a token boundary.
import type { Found } from "./found.ts";

export type ReferenceKind = "booking" | "invoice" | "ticket" | "reference";
export type Reference = { kind: ReferenceKind; value: string };

// The label, optional qualifier ("number", "ref", "#"), optional ":"/"is", then the value.
const QUALIFIER = String.raw`(?: {1,3}(?:number|no\.?|num\.?|nr\.?|id|code|ref(?:erence)?\.?|#))?(?: {0,3}(?:[:#]|is)| {0,3}-)? {0,3}#? {0,2}`;
const VALUE = "([A-Z0-9](?:[A-Z0-9/-]{0,30}[A-Z0-9])?)";
const LABELS: [ReferenceKind, string][] = [
  ["booking", "booking|reservation|confirmation|pnr|record locator|buchungsnummer|réservation|reserva|prenotazione"],
  ["invoice", "invoice|rechnung(?:snummer)?|facture|factura|fattura"],
  ["ticket", "ticket|case|incident|support request|service request"],
  ["reference", String.raw`(?:payment |transaction |customer |your )?reference|ref\.?|agreement|contract|policy|membership`],
];
const LABELLED = LABELS.map(([kind, words]) => ({
  kind,
  pattern: new RegExp(String.raw`(?<![\w-])(?:${words})\b${QUALIFIER}${VALUE}(?![\w-])`, "gi"),
}));
// An upper-case prefix, a hyphen and digits: INV-2026-0912, RA-558201, PR-7781-QQ.
const PREFIXED = /(?<![\w-])[A-Z]{2,5}-\d{3,}(?:-[A-Z0-9]{1,10}){0,3}(?![\w-])/g;

const MAX_REFERENCES = 10;
const YEAR = /^(?:19|20)\d\d$/;

/** `taken` are spans already claimed by other extractors (order and tracking numbers, amounts, phones). */
export function findReferences(text: string, taken: { index: number; end: number; value?: unknown }[]): Found<Reference>[] {
  const out: Found<Reference>[] = [];
  const seen = new Set(taken.map((span) => (typeof span.value === "string" ? span.value.toUpperCase() : "")));
  const add = (kind: ReferenceKind, value: string, index: number) => {
    const end = index + value.length;
    const key = value.toUpperCase();
    if (out.length >= MAX_REFERENCES || seen.has(key)) return;
    if (taken.some((span) => index < span.end && span.index < end) || out.some((span) => index < span.end && span.index < end)) return;
    seen.add(key);
    out.push({ value: { kind, value }, index, end });
  };
  for (const { kind, pattern } of LABELLED) {
    for (const m of text.matchAll(pattern)) {
      const value = m[1]!;
      // A reference has a digit and is not a year or a small count ("case 2", "ticket 2026").
      if (value.length < 4 || !/\d/.test(value) || YEAR.test(value)) continue;
      // Lower-case words with digits ("2fa") are not references; ids are written in capitals.
      if (/[a-z]/.test(value)) continue;
      add(kind, value, m.index + m[0].length - value.length);
    }
  }
  for (const m of text.matchAll(PREFIXED)) {
    if ((m[0].match(/\d/g) ?? []).length < 4) continue;
    add(m[0].startsWith("INV") ? "invoice" : "reference", m[0], m.index);
  }
  return out.sort((a, b) => a.index - b.index);
}
