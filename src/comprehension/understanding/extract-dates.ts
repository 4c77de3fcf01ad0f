// Dates as mail writes them: "2026-03-03", "March 3, 2026", "3 March 2026", "03/03/2026",
// "tomorrow at 3pm". A date with a year becomes ISO (with "THH:MM" when a time follows it);
// one without a year, or a relative one, is kept as written: guessing the year or "today"
// would invent a fact. Quantifiers are bounded so the scan stays linear.

import { zoneAfter } from "./extract-zones.ts";
import type { Found } from "./found.ts";

export type FoundDate = { text: string; iso: string | null };

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH =
  "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?";
const WEEKDAY = "(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|rsday|urday|sday)?\\.?";

const ISO = /(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?(?![\w])/g;
const MONTH_FIRST = new RegExp(
  `\\b(?:${WEEKDAY},? {1,3})?(${MONTH})\\.? {1,3}(\\d{1,2})(?:st|nd|rd|th)?(?:,? {1,3}(\\d{4}))?(?![\\w:])`,
  "gi",
);
const DAY_FIRST = new RegExp(
  `\\b(?:${WEEKDAY},? {1,3})?(\\d{1,2})(?:st|nd|rd|th)?(?: {1,3}of)? {1,3}(${MONTH})\\.?(?:,? {1,3}(\\d{4}))?(?![\\w])`,
  "gi",
);
// "/" is read month-first (US) unless the first number cannot be a month; "." day-first.
const NUMERIC = /(?<![\w/.])(\d{1,2})([/.])(\d{1,2})\2(\d{4})(?![\w/]|\.\d)/g;
const RELATIVE = new RegExp(
  `(?<!black |cyber )\\b(?:today|tonight|tomorrow|yesterday|(?:next|this|last) {1,3}(?:week|month|year|${WEEKDAY})|monday|tuesday|wednesday|thursday|friday|saturday|sunday)` +
    `(?: {1,3}(?:at|@) {1,3}(?:\\d{1,2}(?::\\d{2})? ?(?:[ap]m|[ap]\\.m\\.)?|noon|midnight)| {1,3}(?:morning|afternoon|evening|night))?(?![\\w])`,
  "gi",
);
// Sticky: a time right after a date ("March 3, 2026 at 3:30 PM").
const TIME_AFTER = /,? {0,3}(?:at {1,3}|from {1,3}|@ {0,2})?(\d{1,2})(?::(\d{2}))? ?([ap])?\.?(m\b)?\.?/iy;

const MAX_DATES = 40;

export function findDates(text: string): Found<FoundDate>[] {
  const out: Found<FoundDate>[] = [];
  const take = (index: number, end: number, value: FoundDate) => {
    if (out.length >= MAX_DATES || out.some((d) => index < d.end && d.index < end)) return;
    out.push({ value, index, end });
  };

  for (const m of text.matchAll(ISO)) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (!validDay(y, mo, d)) continue;
    const end = m.index + m[0].length;
    if (!m[4]) {
      // "2026-03-21 at 02:00 UTC": the time and zone written after the date.
      const timed = timeAfter(text, end, `${m[1]}-${m[2]}-${m[3]}`);
      take(m.index, timed.end, { text: text.slice(m.index, timed.end), iso: timed.iso });
      continue;
    }
    let iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}`;
    let until = end;
    if (m[6]) iso += m[6] === "Z" ? "+00:00" : m[6].includes(":") ? m[6] : `${m[6].slice(0, 3)}:${m[6].slice(3)}`;
    else {
      const zone = zoneAfter(text, end, iso);
      if (zone) [iso, until] = [iso + zone.offset, zone.end];
    }
    take(m.index, until, { text: text.slice(m.index, until), iso });
  }
  for (const m of text.matchAll(MONTH_FIRST)) {
    dated(text, m, monthNumber(m[1]!), Number(m[2]), m[3], take);
  }
  for (const m of text.matchAll(DAY_FIRST)) {
    dated(text, m, monthNumber(m[2]!), Number(m[1]), m[3], take);
  }
  for (const m of text.matchAll(NUMERIC)) {
    const [a, b] = [Number(m[1]), Number(m[3])];
    const dayFirst = m[2] === "." || a > 12;
    dated(text, m, dayFirst ? b : a, dayFirst ? a : b, m[4], take);
  }
  for (const m of text.matchAll(RELATIVE)) {
    take(m.index, m.index + m[0].length, { text: m[0], iso: null });
  }
  return out.sort((a, b) => a.index - b.index);
}

function dated(
  text: string,
  m: RegExpMatchArray,
  month: number,
  day: number,
  year: string | undefined,
  take: (index: number, end: number, value: FoundDate) => void,
): void {
  const index = m.index!;
  const end = index + m[0].length;
  if (!year) {
    if (month >= 1 && day >= 1 && day <= 31) take(index, end, { text: m[0], iso: null });
    return;
  }
  if (!validDay(Number(year), month, day)) return;
  const timed = timeAfter(text, end, `${year}-${pad(month)}-${pad(day)}`);
  take(index, timed.end, { text: text.slice(index, timed.end), iso: timed.iso });
}

/** The date's ISO text extended by a time written after it (and that time's zone), and where they end. */
function timeAfter(text: string, dateEnd: number, date: string): { iso: string; end: number } {
  let iso = date;
  let end = dateEnd;
  TIME_AFTER.lastIndex = end;
  const t = TIME_AFTER.exec(text);
  // A bare number after a date is not a time; minutes or am/pm make it one.
  if (t && (t[2] !== undefined || (t[3] && t[4]))) {
    let hour = Number(t[1]);
    const pm = t[3]?.toLowerCase() === "p";
    if (t[3] && t[4]) hour = (hour % 12) + (pm ? 12 : 0);
    const minute = Number(t[2] ?? 0);
    if (hour < 24 && minute < 60) {
      iso += `T${pad(hour)}:${pad(minute)}`;
      end = TIME_AFTER.lastIndex;
      const zone = zoneAfter(text, end, iso);
      if (zone) [iso, end] = [iso + zone.offset, zone.end];
    }
  }
  return { iso, end };
}

function monthNumber(name: string): number {
  return MONTHS[name.slice(0, name.toLowerCase().startsWith("sept") ? 4 : 3).toLowerCase()] ?? 0;
}

function validDay(year: number, month: number, day: number): boolean {
  if (year < 1900 || year > 2200 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}
