// The time zone written after a time ("10:00 CET", "5:00 PM EST", "02:00 UTC", "UTC+2",
// "08:15 Europe/Berlin") as an ISO offset for that date. IANA names go through Intl, so
// daylight saving time is right for the date; abbreviations use their fixed offsets.
const ABBREVIATIONS: Record<string, string> = {
  UTC: "+00:00",
  GMT: "+00:00",
  Z: "+00:00",
  WET: "+00:00",
  WEST: "+01:00",
  BST: "+01:00",
  CET: "+01:00",
  CEST: "+02:00",
  EET: "+02:00",
  EEST: "+03:00",
  MSK: "+03:00",
  IST: "+05:30",
  SGT: "+08:00",
  HKT: "+08:00",
  JST: "+09:00",
  KST: "+09:00",
  AEST: "+10:00",
  AEDT: "+11:00",
  NZST: "+12:00",
  NZDT: "+13:00",
  EST: "-05:00",
  EDT: "-04:00",
  CST: "-06:00",
  CDT: "-05:00",
  MST: "-07:00",
  MDT: "-06:00",
  PST: "-08:00",
  PDT: "-07:00",
  AKST: "-09:00",
  HST: "-10:00",
};
const ZONE_AFTER = new RegExp(
  String.raw` {0,2}\(? {0,2}(?:(UTC|GMT) {0,1}([+-]) {0,1}(\d{1,2})(?::?(\d{2}))?|(${Object.keys(ABBREVIATIONS).join("|")})|([A-Z][a-z]+(?:_[A-Z][a-z]+)?\/[A-Z][A-Za-z_]{2,30}))(?![\w/])`,
  "y",
);

/** The offset of a zone written at `at` in `text` for the local date-time `iso`, and where it ends. */
export function zoneAfter(text: string, at: number, iso: string): { offset: string; end: number } | null {
  ZONE_AFTER.lastIndex = at;
  const m = ZONE_AFTER.exec(text);
  if (!m) return null;
  const end = ZONE_AFTER.lastIndex;
  if (m[1]) {
    const hours = Number(m[3]);
    const minutes = Number(m[4] ?? 0);
    if (hours > 14 || minutes > 59) return null;
    return { offset: `${m[2]}${String(hours).padStart(2, "0")}:${String(minutes).padStart(2, "0")}`, end };
  }
  if (m[5]) return { offset: ABBREVIATIONS[m[5]]!, end };
  const offset = ianaOffset(m[6]!, iso);
  return offset ? { offset, end } : null;
}

function ianaOffset(zone: string, iso: string): string | null {
  try {
    // The zone's offset at that local time: format the instant as if it were UTC, then compare.
    const guess = new Date(`${iso}:00Z`);
    const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(guess);
    const name = parts.find((part) => part.type === "timeZoneName")?.value ?? "";
    if (name === "GMT") return "+00:00";
    const m = /^GMT([+-]\d{2}):(\d{2})$/.exec(name);
    return m ? `${m[1]}:${m[2]}` : null;
  } catch {
    return null; // not a zone Intl knows
  }
}
