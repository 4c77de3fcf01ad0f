// The facts every inbound message yields whatever its mailbox asks for: one-time codes,
// sign-in, reset and unsubscribe links, dates, amounts, order and tracking numbers, phones.
// Mail is hostile input: every quantifier below is bounded and every token pattern starts only
// at a token boundary (a lookbehind), so a scan costs a constant per character of input.

import { findDates } from "./extract-dates.ts";
import { classifyLinks } from "./extract-links.ts";
import { findReferences, type Reference } from "./extract-references.ts";

export type ComprehensionInput = {
  subject: string;
  fromAddr: string;
  bodyClean: string;
  /** Lower-case header names to their first value ('list-id', 'auto-submitted', ...). */
  headers: Record<string, string>;
  attachments: { filename: string | null; contentType: string }[];
  /** Every MIME part type seen ('text/calendar', 'message/delivery-status', ...). */
  contentTypes: string[];
  /** The mailbox's extraction JSON Schema, or null. */
  schema: Record<string, unknown> | null;
};

export type Amount = { value: number; currency: string; text: string };
export type TrackingNumber = { carrier: string | null; number: string };

export type Facts = {
  verification_codes: string[];
  sign_in_links: string[];
  password_reset_links: string[];
  unsubscribe_links: string[];
  links: string[];
  dates: string[];
  amounts: Amount[];
  order_numbers: string[];
  /** booking, invoice, ticket and other references (order numbers are in order_numbers) */
  references: Reference[];
  tracking_numbers: TrackingNumber[];
  phone_numbers: string[];
};

import type { Found } from "./found.ts";

export type { Found } from "./found.ts";

// Beyond what the sanitizer keeps; a guard, not a limit real mail reaches.
const MAX_SCAN_CHARS = 1_000_000;
const MAX_ITEMS = 10;

/** The text every extractor reads: the subject, a blank line, the cleaned body. */
export function scanText(input: Pick<ComprehensionInput, "subject" | "bodyClean">): string {
  return `${input.subject}\n\n${input.bodyClean}`.slice(0, MAX_SCAN_CHARS);
}

export function extractFacts(input: ComprehensionInput): Facts {
  const text = scanText(input);
  const links = classifyLinks(text, input.headers["list-unsubscribe"] ?? null);
  const phones = findPhones(text);
  const orders = findOrderNumbers(text);
  const amounts = findAmounts(text);
  const tracking = findTrackingNumbers(text);
  const codes = findVerificationCodes(text, [...phones, ...amounts], orders);
  const references = findReferences(text, [
    ...orders,
    ...tracking.map((t) => ({ ...t, value: t.value.number })),
    ...amounts,
    ...phones,
    ...codes,
  ]);
  return {
    verification_codes: unique(codes.map((f) => f.value)),
    sign_in_links: links.signIn,
    password_reset_links: links.reset,
    unsubscribe_links: links.unsubscribe,
    links: links.all,
    dates: uniqueBy(
      findDates(text).map((d) => d.value.iso ?? d.value.text),
      (d) => d.toLowerCase(),
    ),
    amounts: uniqueBy(
      amounts.map((a) => a.value),
      (a) => `${a.currency}:${a.value}`,
    ),
    order_numbers: unique(orders.map((o) => o.value)),
    references: references.map((r) => r.value),
    tracking_numbers: uniqueBy(
      tracking.map((t) => t.value),
      (t) => t.number,
    ),
    phone_numbers: unique(phones.map((p) => p.value)),
  };
}

// ---- verification codes ----------------------------------------------------------------

const CODE_TRIGGER = /\b(?:codes?|passcode|pass code|otp|one[- ]time (?:password|pin)|pin|verification|verify|2fa|mfa|security key)\b/gi;
// "code" after these words is not a code to type in.
const NOT_A_CODE_BEFORE =
  /\b(?:promo|promotional|coupon|discount|voucher|referral|gift|error|status|area|zip|postal|post|source|qr|bar|dress|country|tax|sort|swift|reason|response|exit|exception|fault|reference)\W{0,3}$/i;
// "Get 25% off ... use code BLOOM25 at checkout": a code in a sales pitch is a coupon.
const SHOPPING_BEFORE = /\d%|% off|\b(?:discount|coupon|promo|checkout|off your)\b/i;
// A 4-8 character token, a "123 456" or "123-456" pair, optionally "G-" prefixed; never glued
// to a currency sign, '#', a path or a decimal.
const CODE_CANDIDATE = /(?<![\w#$€£¥₹.,/:+-]|\d[ -])(?:[A-Z]-)?(\d{4,8}|\d{3}[ -]\d{3}|[A-Z0-9]{4,8})(?![\w/%]|[.,:]\d|[ -]\d)/g;
// Codes written in groups: "90-21-77", "8841 2205", "4 8 2 9 1 3" (also what styled HTML
// digits in separate cells become), "K7Q-2M9". Typed without the separators.
const SEPARATED_CODE =
  /(?<![\w#$€£¥₹.,/:+-]|\d[ -])(\d{2,4}(?:[ -]\d{2,4}){1,3}|\d(?: \d){3,7}|(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{3,4}-[A-Z0-9]{3,4})(?![\w/%-]|[.,:]\d|[ -]\d)/g;

/** Plain and grouped candidates in text order; a grouped one wins over plain ones inside it. */
function codeCandidates(masked: string): RegExpMatchArray[] {
  const grouped = [...masked.matchAll(SEPARATED_CODE)].filter((m) => {
    const digits = m[1]!.replace(/[^0-9A-Z]/g, "").length;
    return digits >= 4 && digits <= 8 && /[ -]/.test(m[1]!);
  });
  const plain = [...masked.matchAll(CODE_CANDIDATE)].filter(
    (m) => !grouped.some((g) => m.index! < g.index! + g[0].length && g.index! < m.index! + m[0].length),
  );
  return [...grouped, ...plain].sort((a, b) => a.index! - b.index!);
}
const YEAR = /^(?:19|20)\d\d$/;
const YEAR_ALLOWED_AFTER = /\b(?:code|pin|otp|passcode)\W{0,3}(?:is\W{0,3})?$/i;
const CURRENCY_AFTER = /^\s{0,2}(?:usd|eur|gbp|dollars?|euros?|pounds?)\b/i;
const TRIGGER_REACH_BEFORE = 120; // "Your code is below.\n\n  482913": trigger precedes the code
const TRIGGER_REACH_AFTER = 60; // "482913 is your code"

function findVerificationCodes(text: string, taken: Found<unknown>[], orders: Found<string>[]): Found<string>[] {
  const masked = maskLinksAndEmails(text);
  const triggers: number[][] = [];
  for (const m of masked.matchAll(CODE_TRIGGER)) {
    const before = masked.slice(Math.max(0, m.index - 24), m.index);
    const sentence = masked.slice(Math.max(0, m.index - 80), m.index);
    if (!NOT_A_CODE_BEFORE.test(before) && !SHOPPING_BEFORE.test(sentence)) triggers.push([m.index, m.index + m[0].length]);
  }
  if (triggers.length === 0) return [];
  const orderValues = new Set(orders.map((o) => o.value));
  const out: Found<string>[] = [];
  let t = 0;
  for (const m of codeCandidates(masked)) {
    const raw = m[0];
    const start = m.index!;
    const end = start + raw.length;
    // Triggers are sorted: move past those that end too far before this candidate.
    while (t < triggers.length && triggers[t]![1] < start - TRIGGER_REACH_BEFORE) t++;
    const near = t < triggers.length && triggers[t]![0] <= end + TRIGGER_REACH_AFTER;
    if (!near) continue;
    const token = m[1]!;
    if (!/\d/.test(token)) continue;
    if (YEAR.test(token) && !YEAR_ALLOWED_AFTER.test(masked.slice(Math.max(0, start - 16), start))) continue;
    if (CURRENCY_AFTER.test(masked.slice(end, end + 12))) continue;
    if (orderValues.has(token) || overlaps(start, end, taken)) continue;
    // What one types: "482-913" and "G-318204" are entered as 482913 and 318204.
    if (/^\d{4}-\d{2}-\d{2}$/.test(token)) continue; // an ISO date, not a code
    out.push({ value: token.replace(/[ -]/g, ""), index: start, end });
    if (out.length >= MAX_ITEMS) break;
  }
  return out;
}

const LINK_OR_EMAIL = /https?:\/\/[^\s<>"'\]]{1,2048}|(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}/gi;

function maskLinksAndEmails(text: string): string {
  return text.replace(LINK_OR_EMAIL, (m) => " ".repeat(m.length));
}

// ---- phones, amounts, orders, tracking ------------------------------------------------

const PHONE = /(?<![\w+]|\d[ .-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{3,4}[ .-]\d{3,4}(?![\w]|[ .-]\d)/g;

function findPhones(text: string): Found<string>[] {
  const out: Found<string>[] = [];
  for (const m of text.matchAll(PHONE)) {
    const digits = m[0].replace(/\D/g, "").length;
    if (digits < 7 || digits > 15) continue;
    // "2026.03.03"-like and bare "123-4567" groups are too ambiguous without a + or ().
    if (!/[+(]/.test(m[0]) && digits < 10) continue;
    out.push({ value: m[0], index: m.index, end: m.index + m[0].length });
  }
  return out.slice(0, MAX_ITEMS);
}

const SYMBOLS: Record<string, string> = {
  US$: "USD",
  CA$: "CAD",
  C$: "CAD",
  AU$: "AUD",
  A$: "AUD",
  NZ$: "NZD",
  HK$: "HKD",
  S$: "SGD",
  R$: "BRL",
  $: "USD",
  "€": "EUR",
  "£": "GBP",
  "¥": "JPY",
  "₹": "INR",
  "₩": "KRW",
};
const CODES = "USD|EUR|GBP|JPY|CAD|AUD|NZD|CHF|INR|CNY|SEK|NOK|DKK|MXN|BRL|ZAR|SGD|HKD|PLN|CZK|KRW";
const SYM = "US\\$|CA\\$|C\\$|AU\\$|A\\$|NZ\\$|HK\\$|S\\$|R\\$|\\$|€|£|¥|₹|₩";
// Thousands grouped by commas, dots or spaces (also no-break spaces): 1,234.56, 1.234,56, 2 500,00.
const NUM =
  "\\d{1,3}(?:[,.]\\d{3}){1,5}(?:[.,]\\d{1,2})?|\\d{1,3}(?:[ \\u00a0\\u202f]\\d{3}){1,4}(?:[.,]\\d{1,2})?|\\d{1,12}(?:[.,]\\d{1,2})?";
const AMOUNT = new RegExp(
  `(?<![\\w$€£¥₹.,])(?:(${SYM}) ?(${NUM})|(${CODES}) {0,2}(${NUM})|(${NUM}) {0,2}(?:(${CODES})\\b|(€|£)))(?![\\d]|[.,]\\d)`,
  "g",
);

export function findAmounts(text: string): Found<Amount>[] {
  const out: Found<Amount>[] = [];
  for (const m of text.matchAll(AMOUNT)) {
    const currency = m[1] ? SYMBOLS[m[1]]! : (m[3] ?? m[6] ?? SYMBOLS[m[7] ?? ""] ?? "");
    const value = parseNumber(m[2] ?? m[4] ?? m[5] ?? "");
    if (!currency || !Number.isFinite(value)) continue;
    out.push({ value: { value, currency, text: m[0].trim() }, index: m.index, end: m.index + m[0].length });
    if (out.length >= MAX_ITEMS * 3) break;
  }
  return out;
}

/** "1,234.56", "1.234,56", "12,50", "1,234": the last separator is decimal only before 1-2 digits. */
export function parseNumber(text: string): number {
  const s = text.replace(/[ \u00a0\u202f]/g, "");
  const last = Math.max(s.lastIndexOf(","), s.lastIndexOf("."));
  if (last >= 0 && s.length - last - 1 <= 2) {
    return Number(`${s.slice(0, last).replace(/[,.]/g, "")}.${s.slice(last + 1)}`);
  }
  return Number(s.replace(/[,.]/g, ""));
}

const ORDER =
  /\border(?: {1,3}(?:number|no\.?|num\.?|id|ref(?:erence)?|confirmation))?(?: {0,3}(?:[:#]|is))? {0,3}#? {0,2}([A-Z0-9](?:[A-Z0-9-]{0,30}[A-Z0-9])?)\b/gi;

function findOrderNumbers(text: string): Found<string>[] {
  const out: Found<string>[] = [];
  for (const m of text.matchAll(ORDER)) {
    const value = m[1]!;
    if (value.length < 3 || !/\d/.test(value)) continue;
    if (YEAR.test(value) || /^\d{1,2}$/.test(value)) continue;
    const start = m.index + m[0].length - value.length;
    out.push({ value, index: start, end: start + value.length });
    if (out.length >= MAX_ITEMS) break;
  }
  return out;
}

const UPS = /(?<![\w])1Z[0-9A-Z]{16}(?![\w])/gi;
const USPS = /(?<![\w]|\d )9[2-5]\d\d(?: ?\d{4}){4}(?: ?\d\d)?(?![\w]| \d)/g;
const S10 = /(?<![\w])[A-Z]{2}\d{9}[A-Z]{2}(?![\w])/g;
const DIGIT_RUN = /(?<![\w])\d{10,20}(?![\w])/g;
const LABELLED = /\btracking(?: {1,3}(?:number|no\.?|num\.?|id|code))?(?: {0,3}[:#]| {1,3}is)? {0,3}([A-Z0-9]{8,34})(?![\w])/gi;
const CARRIER_NAMES =
  /\b(ups|usps|fedex|fed ex|dhl|royal mail|canada post|ontrac|lasership|australia post|postnl|la poste|gls|dpd|hermes|evri)\b/gi;
const CARRIER_REACH = 200;

function findTrackingNumbers(text: string): Found<TrackingNumber>[] {
  const carriers = [...text.matchAll(CARRIER_NAMES)].map((m) => ({ index: m.index, name: carrierName(m[1]!) }));
  // Mentions come sorted by position: binary search the first at or after `at`, compare neighbours.
  const nearest = (at: number): string | null => {
    let lo = 0;
    let hi = carriers.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (carriers[mid]!.index < at) lo = mid + 1;
      else hi = mid;
    }
    const candidates = [carriers[lo - 1], carriers[lo]].filter((c) => c && Math.abs(c.index - at) <= CARRIER_REACH);
    candidates.sort((a, b) => Math.abs(a!.index - at) - Math.abs(b!.index - at));
    return candidates[0]?.name ?? null;
  };
  const out: Found<TrackingNumber>[] = [];
  const add = (index: number, raw: string, carrier: string | null) => {
    const end = index + raw.length;
    if (out.length >= MAX_ITEMS || overlaps(index, end, out)) return;
    out.push({ value: { carrier, number: raw.replace(/ /g, "").toUpperCase() }, index, end });
  };
  for (const m of text.matchAll(UPS)) add(m.index, m[0], "UPS");
  for (const m of text.matchAll(USPS)) add(m.index, m[0], "USPS");
  for (const m of text.matchAll(S10)) add(m.index, m[0], m[0].endsWith("US") ? "USPS" : nearest(m.index));
  for (const m of text.matchAll(DIGIT_RUN)) {
    const n = m[0].length;
    const carrier = nearest(m.index);
    if (carrier === "FedEx" && (n === 12 || n === 15 || n === 20)) add(m.index, m[0], carrier);
    else if (carrier === "DHL" && n === 10) add(m.index, m[0], carrier);
  }
  for (const m of text.matchAll(LABELLED)) {
    const value = m[1]!;
    if (!/\d/.test(value)) continue;
    const start = m.index + m[0].length - value.length;
    add(start, value, nearest(start));
  }
  return out.sort((a, b) => a.index - b.index);
}

function carrierName(raw: string): string {
  const key = raw.toLowerCase().replace(/\s+/g, " ");
  const names: Record<string, string> = {
    ups: "UPS",
    usps: "USPS",
    fedex: "FedEx",
    "fed ex": "FedEx",
    dhl: "DHL",
    gls: "GLS",
    dpd: "DPD",
    postnl: "PostNL",
  };
  return names[key] ?? key.replace(/\b\w/g, (c) => c.toUpperCase());
}

// ---- helpers ---------------------------------------------------------------------------

function overlaps(start: number, end: number, spans: { index: number; end: number }[]): boolean {
  return spans.some((s) => start < s.end && s.index < end);
}

export function unique(values: string[]): string[] {
  return [...new Set(values)].slice(0, MAX_ITEMS);
}

function uniqueBy<T>(values: T[], key: (v: T) => string): T[] {
  const seen = new Set<string>();
  return values.filter((v) => !seen.has(key(v)) && seen.add(key(v))).slice(0, MAX_ITEMS);
}
