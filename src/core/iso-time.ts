// Strict ISO 8601 (RFC 3339 profile) for times a client sends: `2026-02-28`, `2026-02-28T10:00`,
// `2026-02-28T10:00:00.123Z`, `...+02:00`. Every field is checked against the calendar, so
// `2020-02-30` or `T24:00` is refused rather than rolled over into another day as Date.parse does.
// A date is midnight UTC; a date-time without an offset is UTC.
const pattern = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-](\d{2}):?(\d{2}))?)?$/;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The instant, or null when the text is not a strict ISO 8601 date or date-time (or `requireTime` and it is a date alone). */
export function parseIsoTime(text: string, options: { requireTime?: boolean } = {}): Date | null {
  const match = pattern.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zone, zh, zm] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (h === undefined) return options.requireTime ? null : new Date(Date.UTC(year, month - 1, day));
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== "Z") {
    if (Number(zh) > 23 || Number(zm) > 59) return null;
    offsetMinutes = (zone.startsWith("-") ? -1 : 1) * (Number(zh) * 60 + Number(zm));
  }
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, "0")) : 0;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000);
}
