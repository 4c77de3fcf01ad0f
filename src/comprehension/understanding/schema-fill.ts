// Fills a mailbox's extraction schema (its top-level properties) from one message, without a
// model: an explicit "Label: value" line whose label matches the property wins; otherwise the
// property's name, title and description say which fact it wants (a code, an order number, a
// total, a due date, the sender ...). Every value is coerced to the declared type and
// validated; a value that does not fit is dropped, never forced, so a required property is
// either truly found or reported missing.

import { type Amount, type ComprehensionInput, type Facts, type Found, findAmounts, parseNumber, scanText } from "./extract.ts";
import { type FoundDate, findDates } from "./extract-dates.ts";
import type { Label } from "./labels.ts";
import WORDS from "./schema-fill-words.json" with { type: "json" };
import { declaredTypes, isObject, type JsonSchema, validateProperty } from "./schema-validate.ts";

export type SchemaFill = {
  values: Record<string, unknown>;
  missing_required: string[];
  /** Values found but rejected by the schema, as "/name: reason". */
  errors: string[];
};

type Ctx = {
  input: ComprehensionInput;
  facts: Facts;
  text: string;
  lower: string;
  lines: LabelLine[];
  label: Label | null;
  // Positions are needed only for totals and due dates; scanned once, on first use.
  amounts: () => Found<Amount>[];
  dates: () => Found<FoundDate>[];
};
type LabelLine = { tokens: string[]; value: string };

const MAX_STRING = 2000;
const SUMMARY_CHARS = 280;
// Tokens that say what shape a value has, not which value it is: matching on them alone would
// put the "Date:" line of a quoted header into `due_date`.
const GENERIC = new Set(WORDS.GENERIC);
const BOOLEAN_PREFIX = new Set(WORDS.BOOLEAN_PREFIX);

export function fillSchema(schema: JsonSchema, input: ComprehensionInput, facts: Facts, label: Label | null = null): SchemaFill {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const text = scanText(input);
  const ctx: Ctx = {
    input,
    facts,
    text,
    lower: text.toLowerCase(),
    lines: labelLines(input.bodyClean),
    label,
    amounts: once(() => findAmounts(text)),
    dates: once(() => findDates(text)),
  };
  const values: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const [name, sub] of Object.entries(properties)) {
    if (!isObject(sub)) continue;
    // The first candidate that coerces and validates wins; a labelled line that does not fit
    // (a "Priority: whenever" for an enum) gives way to what the text otherwise says.
    const problems: string[] = [];
    for (const raw of candidates(name, sub, ctx)) {
      const value = coerce(raw, sub);
      if (value === undefined) continue;
      // Judged inside the whole schema (Ajv): $ref, anyOf, const, format, additionalProperties.
      const found = validateProperty(schema, name, value);
      if (found.length === 0) {
        values[name] = value;
        break;
      }
      problems.push(...found);
    }
    if (!(name in values)) errors.push(...problems);
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  return { values, missing_required: required.filter((r) => !(r in values)), errors };
}

function* candidates(name: string, sub: JsonSchema, ctx: Ctx): Generator<unknown> {
  const nameTokens = tokens(name);
  const titleTokens = typeof sub.title === "string" ? tokens(sub.title) : [];
  yield matchLabelLine(ctx.lines, nameTokens) ?? matchLabelLine(ctx.lines, titleTokens);
  yield inferred(nameTokens, titleTokens, sub, ctx);
}

function inferred(nameTokens: string[], titleTokens: string[], sub: JsonSchema, ctx: Ctx): unknown {
  const types = declaredTypes(sub);
  const about = [...nameTokens, ...titleTokens].join(" ");
  const described = `${about} ${typeof sub.description === "string" ? tokens(sub.description).join(" ") : ""}`;
  if (Array.isArray(sub.enum)) return pickEnum(sub.enum, nameTokens, ctx);
  if ("const" in sub) return pickEnum([sub.const], nameTokens, ctx);
  if (types.includes("boolean")) return booleanFrom(nameTokens, ctx);
  const list = types.includes("array");
  return factFor(about, list, types, ctx) ?? factFor(described, list, types, ctx) ?? numberNear(nameTokens, types, ctx);
}

// The fact a property's words ask for; `words` is its name (then its description) as tokens.
function factFor(words: string, list: boolean, types: string[], ctx: Ctx): unknown {
  const f = ctx.facts;
  const pick = <T>(xs: T[]): T | T[] | undefined => (list ? (xs.length ? xs : undefined) : xs[0]);
  const textual = types.length === 0 || types.includes("string") || list;
  const is = (re: RegExp) => re.test(words);
  if (is(/\b(?:reset|recover)\b/) && is(/\b(?:link|url)\b/)) return pick(f.password_reset_links);
  if (is(/\bunsubscribe|opt out\b/)) return pick(f.unsubscribe_links);
  if (is(/\b(?:sign in|signin|login|log in|magic|verify|verification|confirm\w*)\b/) && is(/\b(?:link|url)\b/))
    return pick(f.sign_in_links);
  if (is(/\b(?:verification|otp|passcode|2fa|mfa|one time|pin|security code)\b|^code$/)) return pick(f.verification_codes);
  if (is(/\b(?:carrier|courier)\b/)) return pick(f.tracking_numbers.map((t) => t.carrier).filter((c) => c !== null));
  if (is(/\b(?:tracking|shipment)\b/)) return pick(f.tracking_numbers.map((t) => t.number));
  if (is(/\bcurrenc/)) return pick(f.amounts.map((a) => a.currency));
  // Before "order": `order_total` wants the total and `order_date` a date, not the number.
  if (is(/\b(?:amount|total|price|cost|balance|charge|paid|fee|sum|subtotal|refund|payment)\b/)) return amountFor(words, list, types, ctx);
  if (textual && is(/\b(?:date|due|deadline|when|expires?|expiry|expiration|scheduled|datetime|time|day)\b/))
    return dateFor(words, list, ctx);
  if (is(/\border\b|\bpurchase (?:number|id)\b/)) return pick(f.order_numbers);
  if (is(/\bphone|telephone|mobile\b/)) return pick(f.phone_numbers);
  if (is(/\b(?:sender|from|author)\b/)) return ctx.input.fromAddr;
  if (is(/\be ?mail\b/)) return bodyEmail(ctx) ?? ctx.input.fromAddr;
  if (is(/\b(?:subject|title|topic|headline)\b/)) return ctx.input.subject;
  if (is(/\b(?:link|url|website|href|links|urls)\b/)) return pick(f.links);
  if (is(/\b(?:category|label|classification|kind|intent)\b/) && ctx.label) return ctx.label;
  if (is(/\b(?:summary|snippet|preview|body|message|content|text|excerpt)\b/)) return summary(ctx.input.bodyClean);
  return undefined;
}

function amountFor(words: string, list: boolean, types: string[], ctx: Ctx): unknown {
  const amounts = ctx.amounts();
  if (amounts.length === 0) return undefined;
  const asValue = (a: Found<Amount>) => (types.includes("number") || types.includes("integer") ? a.value.value : a.value.text);
  if (list) return amounts.map(asValue);
  const cue = words.match(/\b(subtotal|tax|shipping|fee|refund|balance|due|deposit|price|total)\b/)?.[1];
  const near = (re: RegExp) => nearestAfter(ctx.lower, re, amounts, 60);
  const chosen =
    (cue ? near(new RegExp(`\\b${cue}\\b`, "g")) : undefined) ??
    near(/\b(?:total|amount due|balance due|amount paid|amount charged)\b/g) ??
    amounts.reduce((a, b) => (b.value.value > a.value.value ? b : a));
  return asValue(chosen);
}

function dateFor(words: string, list: boolean, ctx: Ctx): unknown {
  const dates = ctx.dates();
  if (dates.length === 0) return undefined;
  const show = (d: Found<FoundDate>) => d.value.iso ?? d.value.text;
  if (list) return dates.map(show);
  const cue = words.match(/\b(due|deadline|expir\w*|deliver\w*|start\w*|end\w*|meeting|appointment|arriv\w*|renew\w*|event)\b/)?.[1];
  const stem = cue?.replace(/(?:y|ies|ed|ing|ation|es|s)$/, "");
  const chosen = (stem ? nearestAfter(ctx.lower, new RegExp(`\\b${stem}\\w{0,8}`, "g"), dates, 80) : undefined) ?? dates[0]!;
  return show(chosen);
}

// The first found item starting within `reach` characters after a match of `cue`.
function nearestAfter<T>(lower: string, cue: RegExp, items: Found<T>[], reach: number): Found<T> | undefined {
  for (const m of lower.matchAll(cue)) {
    const end = m.index + m[0].length;
    const hit = items.find((it) => it.index >= end && it.index - end <= reach);
    if (hit) return hit;
  }
  return undefined;
}

function numberNear(nameTokens: string[], types: string[], ctx: Ctx): unknown {
  if (!types.includes("number") && !types.includes("integer")) return undefined;
  const word = nameTokens.find((t) => !GENERIC.has(t) && t.length >= 3);
  if (!word) return undefined;
  const re = new RegExp(`(?<![\\d,.])(\\d[\\d,.]{0,15}) {0,2}${word}|\\b${word}\\w{0,3}\\W{0,20}?(\\d[\\d,.]{0,15})`, "i");
  const m = re.exec(ctx.text);
  return m ? (m[1] ?? m[2]) : undefined;
}

function pickEnum(options: unknown[], nameTokens: string[], ctx: Ctx): unknown {
  if (ctx.label && options.includes(ctx.label) && nameTokens.some((t) => /^(?:category|label|classification|kind|type|intent)$/.test(t))) {
    return ctx.label;
  }
  let best: { value: unknown; score: number; at: number } | null = null;
  // One character for one, so positions still line up with ctx.lower.
  const spaced = ctx.lower.replace(/[_-]/g, " ");
  for (const option of options) {
    if (typeof option !== "string" && typeof option !== "number") continue;
    const phrase = String(option).toLowerCase().replace(/[_-]+/g, " ");
    const re = new RegExp(`\\b${escapeRegex(phrase)}\\b`, "g");
    for (const m of spaced.matchAll(re)) {
      const around = ctx.lower.slice(Math.max(0, m.index - 25), m.index + phrase.length + 25);
      const score = nameTokens.some((t) => around.includes(t)) ? 3 : 1;
      if (!best || score > best.score || (score === best.score && m.index < best.at)) best = { value: option, score, at: m.index };
    }
  }
  return best?.value;
}

const URGENT =
  /\b(?:urgent|urgently|asap|as soon as possible|immediately|emergency|critical|time[- ]sensitive|right away|high priority|p0|sev(?:erity)? ?1|outage|down for all)\b/;
const NOT_URGENT = /\b(?:not urgent|no rush|no hurry|low priority|whenever you (?:can|get a chance))\b/;

function booleanFrom(nameTokens: string[], ctx: Ctx): boolean {
  const words = nameTokens.filter((t) => !BOOLEAN_PREFIX.has(t));
  const key = words.join(" ");
  if (/urgent|priority|emergency/.test(key)) return !NOT_URGENT.test(ctx.lower) && URGENT.test(ctx.lower);
  if (/attachment/.test(key)) return ctx.input.attachments.length > 0;
  if (/^(?:reply|response)$/.test(key)) return /^(?:re|aw|sv):/i.test(ctx.input.subject);
  if (/automat|bulk|newsletter|marketing/.test(key))
    return (
      "list-unsubscribe" in ctx.input.headers || "list-id" in ctx.input.headers || /auto-/i.test(ctx.input.headers["auto-submitted"] ?? "")
    );
  if (/action|respon/.test(key))
    return /\b(?:action required|please (?:respond|reply|confirm|review|approve|sign)|respond by|reply by|awaiting your)\b/.test(ctx.lower);
  // Otherwise: true when the property's own distinctive words occur in the message.
  const distinctive = words.filter((w) => w.length >= 4 && !GENERIC.has(w));
  return distinctive.length > 0 && distinctive.some((w) => new RegExp(`\\b${escapeRegex(w)}`).test(ctx.lower));
}

// ---- coercion --------------------------------------------------------------------------

function coerce(raw: unknown, sub: JsonSchema): unknown {
  if (raw === undefined || raw === null) return undefined;
  // A const is a one-value enum.
  const options = Array.isArray(sub.enum) ? sub.enum : "const" in sub ? [sub.const] : null;
  if (options) {
    const s = String(Array.isArray(raw) ? raw[0] : raw)
      .trim()
      .toLowerCase()
      .replace(/[_-]+/g, " ");
    return options.find((e) => String(e).toLowerCase().replace(/[_-]+/g, " ") === s);
  }
  const types = declaredTypes(sub);
  if (types.length === 0) return raw;
  for (const type of types) {
    const v = coerceTo(raw, type, sub);
    if (v !== undefined) return v;
  }
  return undefined;
}

function coerceTo(raw: unknown, type: string, sub: JsonSchema): unknown {
  const one = Array.isArray(raw) ? raw[0] : raw;
  switch (type) {
    case "string":
      return typeof one === "string" || typeof one === "number" ? String(one).trim().slice(0, MAX_STRING) || undefined : undefined;
    case "number":
    case "integer": {
      const n = typeof one === "number" ? one : typeof one === "string" ? parseNumber(one.match(/-?\d[\d,.]*/)?.[0] ?? "") : NaN;
      if (!Number.isFinite(n)) return undefined;
      return type === "integer" ? (Number.isInteger(n) ? n : undefined) : n;
    }
    case "boolean":
      if (typeof one === "boolean") return one;
      if (typeof one === "string" && /^(?:yes|true|y|1|on)$/i.test(one.trim())) return true;
      if (typeof one === "string" && /^(?:no|false|n|0|off)$/i.test(one.trim())) return false;
      return undefined;
    case "array": {
      const items = isObject(sub.items) ? sub.items : {};
      const list = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/\s*[,;]\s*/) : [raw];
      const out = list.map((x) => coerce(x, items)).filter((x) => x !== undefined);
      return out.length ? out : undefined;
    }
    default:
      return undefined;
  }
}

// ---- text helpers ----------------------------------------------------------------------

const LABEL_LINE = /^ {0,8}(?:[*•-] {0,2})?([A-Za-z][A-Za-z0-9 _'./()&-]{0,48}?) {0,3}[:：] {0,4}(\S.{0,500})$/;

function labelLines(body: string): LabelLine[] {
  const out: LabelLine[] = [];
  for (const line of body.split("\n", 2000)) {
    const m = LABEL_LINE.exec(line.trimEnd());
    if (!m || /^(?:https?|mailto)$/i.test(m[1]!)) continue;
    out.push({ tokens: tokens(m[1]!), value: m[2]!.trim() });
  }
  return out;
}

function matchLabelLine(lines: LabelLine[], want: string[]): string | undefined {
  if (want.length === 0) return undefined;
  let best: { score: number; value: string } | undefined;
  for (const line of lines) {
    const shared = line.tokens.filter((t) => want.includes(t));
    const exact = shared.length === want.length && shared.length === line.tokens.length;
    const subset = shared.length > 0 && (shared.length === want.length || shared.length === line.tokens.length);
    const score = exact ? 3 : subset && shared.some((t) => !GENERIC.has(t)) ? 2 : 0;
    if (score > (best?.score ?? 0)) best = { score, value: line.value };
  }
  return best?.value;
}

/** "dueDate", "due_date", "Due date" → ["due", "date"]; plural tokens made singular. */
export function tokens(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((t) => (t.length > 3 && t.endsWith("s") && !t.endsWith("ss") ? t.slice(0, -1) : t));
}

function bodyEmail(ctx: Ctx): string | undefined {
  const from = ctx.input.fromAddr.toLowerCase();
  for (const m of ctx.input.bodyClean.matchAll(/(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}/g)) {
    if (m[0].toLowerCase() !== from) return m[0];
  }
  return undefined;
}

function summary(body: string): string | undefined {
  const flat = body.replace(/\s+/g, " ").trim();
  if (!flat) return undefined;
  if (flat.length <= SUMMARY_CHARS) return flat;
  const cut = flat.slice(0, SUMMARY_CHARS);
  const stop = cut.lastIndexOf(". ");
  return stop > SUMMARY_CHARS / 2 ? cut.slice(0, stop + 1) : `${cut.trimEnd()}…`;
}

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
