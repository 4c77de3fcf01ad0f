// Calendar invitations (iMIP, RFC 6047): an iCalendar object read with ical.js into what an agent
// needs (comprehension.calendar), and the REPLY that answers a REQUEST (RFC 5546 §3.2.3).
// Time zones are resolved from the object's own VTIMEZONE blocks (Google writes IANA names, Outlook
// Windows names such as "W. Europe Standard Time", Apple both), else from the IANA database when the
// TZID names a zone it knows; an all-day event (VALUE=DATE) has dates, not instants.
import ICAL from "ical.js";

export type CalendarTime = {
  /** the instant in UTC (ISO 8601); for an all-day event, midnight UTC of the date */
  utc: string;
  /** the wall-clock time as written (no offset), or the date of an all-day event */
  local: string;
  /** the TZID as written; "UTC" for a Z time; null for floating times and all-day dates */
  time_zone: string | null;
  all_day: boolean;
};

export type CalendarAttendee = { email: string; name: string | null; status: string; role: string | null; rsvp: boolean };

export type CalendarInfo = {
  method: string | null;
  uid: string;
  sequence: number;
  recurrence_id: string | null;
  status: string | null;
  summary: string;
  description: string | null;
  location: string | null;
  start: CalendarTime | null;
  end: CalendarTime | null;
  organizer: { email: string; name: string | null } | null;
  attendees: CalendarAttendee[];
  recurrence: { rule: string; text: string } | null;
};

const MAX_TEXT = 4000;
const MAX_ATTENDEES = 200;

const cut = (value: unknown, max = MAX_TEXT): string | null => (typeof value === "string" && value.length ? value.slice(0, max) : null);
const mailto = (value: unknown): string =>
  String(value ?? "")
    .replace(/^mailto:/i, "")
    .trim()
    .toLowerCase();

/** The first VEVENT of an iCalendar text with its calendar's METHOD, or null when it is not one. */
export function parseCalendar(text: string): CalendarInfo | null {
  let vcalendar: ICAL.Component | null;
  let vevent: ICAL.Component | null | undefined;
  try {
    // A part that is not iCalendar (a few stray bytes, say) parses to a shape the lookups throw on.
    const root = new ICAL.Component(ICAL.parse(text));
    vcalendar = root.name === "vcalendar" ? root : root.getFirstSubcomponent("vcalendar");
    vevent = vcalendar?.getFirstSubcomponent("vevent");
  } catch {
    return null;
  }
  if (!vcalendar || !vevent) return null;
  try {
    const event = new ICAL.Event(vevent);
    const organizer = vevent.getFirstProperty("organizer");
    const rrule = vevent.getFirstPropertyValue("rrule") as ICAL.Recur | null;
    const recurrenceId = vevent.getFirstPropertyValue("recurrence-id") as ICAL.Time | null;
    return {
      method: cut(vcalendar.getFirstPropertyValue("method"), 40)?.toUpperCase() ?? null,
      uid: String(event.uid ?? "").slice(0, 1000),
      sequence: Number(vevent.getFirstPropertyValue("sequence") ?? 0) || 0,
      recurrence_id: recurrenceId ? timeOf(recurrenceId, vevent.getFirstProperty("recurrence-id"))!.utc : null,
      status: cut(vevent.getFirstPropertyValue("status"), 40)?.toUpperCase() ?? null,
      summary: cut(event.summary) ?? "",
      description: cut(event.description),
      location: cut(event.location, 1000),
      start: timeOf(event.startDate, vevent.getFirstProperty("dtstart")),
      end: timeOf(event.endDate, vevent.getFirstProperty("dtend") ?? vevent.getFirstProperty("dtstart")),
      organizer: organizer ? { email: mailto(organizer.getFirstValue()), name: cut(organizer.getParameter("cn"), 200) } : null,
      attendees: vevent
        .getAllProperties("attendee")
        .slice(0, MAX_ATTENDEES)
        .map((attendee) => ({
          email: mailto(attendee.getFirstValue()),
          name: cut(attendee.getParameter("cn"), 200),
          status: String(attendee.getParameter("partstat") ?? "NEEDS-ACTION").toLowerCase(),
          role: cut(attendee.getParameter("role"), 40)?.toLowerCase() ?? null,
          rsvp: String(attendee.getParameter("rsvp") ?? "").toUpperCase() === "TRUE",
        })),
      recurrence: rrule ? { rule: rrule.toString(), text: describeRecurrence(rrule) } : null,
    };
  } catch {
    return null;
  }
}

function timeOf(time: ICAL.Time | null | undefined, property: ICAL.Property | null): CalendarTime | null {
  if (!time) return null;
  const local = time.toString();
  if (time.isDate) return { utc: `${local}T00:00:00.000Z`, local, time_zone: null, all_day: true };
  const tzid = (property?.getParameter("tzid") as string | undefined) ?? null;
  const zone = time.zone?.tzid;
  if (zone === "UTC" || zone === "Z") return { utc: time.toJSDate().toISOString(), local, time_zone: "UTC", all_day: false };
  // Resolved through the object's VTIMEZONE: ical.js knows the offset.
  if (tzid && zone === tzid) return { utc: time.toJSDate().toISOString(), local, time_zone: tzid, all_day: false };
  // A TZID without its VTIMEZONE: the IANA database, when it knows the name.
  if (tzid) {
    const utc = ianaInstant(time, tzid);
    if (utc) return { utc, local, time_zone: tzid, all_day: false };
  }
  // Floating (no zone at all): read as UTC, said so by time_zone null.
  return { utc: `${local}.000Z`, local, time_zone: null, all_day: false };
}

/** The UTC instant of a wall-clock time in an IANA zone, or null when the zone is unknown. */
function ianaInstant(time: ICAL.Time, zone: string): string | null {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  } catch {
    return null;
  }
  const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  const offsetAt = (instant: number) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
    return (
      Date.UTC(
        Number(parts.year),
        Number(parts.month) - 1,
        Number(parts.day),
        Number(parts.hour),
        Number(parts.minute),
        Number(parts.second),
      ) - instant
    );
  };
  // Twice: the first guess may sit across a DST change from the answer.
  let instant = wall - offsetAt(wall);
  instant = wall - offsetAt(instant);
  return new Date(instant).toISOString();
}

const DAYS: Record<string, string> = {
  MO: "Monday",
  TU: "Tuesday",
  WE: "Wednesday",
  TH: "Thursday",
  FR: "Friday",
  SA: "Saturday",
  SU: "Sunday",
};
const UNITS: Record<string, string> = {
  SECONDLY: "second",
  MINUTELY: "minute",
  HOURLY: "hour",
  DAILY: "day",
  WEEKLY: "week",
  MONTHLY: "month",
  YEARLY: "year",
};
const ORDINALS: Record<string, string> = { "1": "first", "2": "second", "3": "third", "4": "fourth", "-1": "last", "-2": "second to last" };

/** "every 2 weeks on Monday and Wednesday, 10 times", "every month on the last Friday, until 2024-12-31". */
export function describeRecurrence(rule: ICAL.Recur): string {
  const unit = UNITS[rule.freq] ?? rule.freq.toLowerCase();
  const interval = rule.interval && rule.interval > 1 ? `every ${rule.interval} ${unit}s` : `every ${unit}`;
  const parts: string[] = [interval];
  const byDay = (rule.parts.BYDAY as string[] | undefined) ?? [];
  if (byDay.length) {
    const days = byDay.map((day) => {
      const match = /^([+-]?\d+)?([A-Z]{2})$/.exec(day);
      if (!match) return day;
      const name = DAYS[match[2]!] ?? match[2]!;
      return match[1] ? `the ${ORDINALS[match[1].replace("+", "")] ?? `${match[1]}.`} ${name}` : name;
    });
    parts.push(`on ${days.length > 1 ? `${days.slice(0, -1).join(", ")} and ${days.at(-1)}` : days[0]}`);
  }
  const byMonthDay = (rule.parts.BYMONTHDAY as number[] | undefined) ?? [];
  if (byMonthDay.length) parts.push(`on day ${byMonthDay.join(", ")} of the month`);
  let text = parts.join(" ");
  if (rule.count) text += `, ${rule.count} times`;
  if (rule.until) text += `, until ${rule.until.toString().slice(0, 10)}`;
  return text;
}

export type RsvpResponse = "accepted" | "declined" | "tentative";
const PARTSTAT: Record<RsvpResponse, string> = { accepted: "ACCEPTED", declined: "DECLINED", tentative: "TENTATIVE" };

/**
 * The iMIP REPLY to a REQUEST, for one attendee: the event's UID, SEQUENCE, RECURRENCE-ID,
 * ORGANIZER, times (with the VTIMEZONE blocks they need) and SUMMARY, and the attendee's PARTSTAT.
 * Null when the text holds no event to answer.
 */
export function buildReply(
  request: string,
  attendee: { email: string; name: string | null },
  response: RsvpResponse,
  comment: string | null,
  now = new Date(),
): string | null {
  let root: ICAL.Component;
  let vevent: ICAL.Component | null;
  try {
    root = new ICAL.Component(ICAL.parse(request));
    vevent = root.getFirstSubcomponent("vevent");
  } catch {
    return null;
  }
  if (!vevent) return null;
  const reply = new ICAL.Component("vcalendar");
  reply.addPropertyWithValue("prodid", "-//agent-mailbox//iMIP reply//EN");
  reply.addPropertyWithValue("version", "2.0");
  reply.addPropertyWithValue("calscale", "GREGORIAN");
  reply.addPropertyWithValue("method", "REPLY");
  const used = new Set(
    ["dtstart", "dtend", "recurrence-id"].map((name) => vevent.getFirstProperty(name)?.getParameter("tzid")).filter(Boolean) as string[],
  );
  for (const timezone of root.getAllSubcomponents("vtimezone")) {
    if (used.has(String(timezone.getFirstPropertyValue("tzid")))) reply.addSubcomponent(new ICAL.Component(timezone.toJSON()));
  }
  const event = new ICAL.Component("vevent");
  for (const name of ["uid", "sequence", "recurrence-id", "dtstart", "dtend", "duration", "summary", "organizer"]) {
    const property = vevent.getFirstProperty(name);
    if (property) event.addProperty(new ICAL.Property(property.toJSON()));
  }
  const stamp = ICAL.Time.fromJSDate(now, true);
  event.addPropertyWithValue("dtstamp", stamp);
  const answer = new ICAL.Property("attendee");
  answer.setValue(`mailto:${attendee.email}`);
  answer.setParameter("partstat", PARTSTAT[response]);
  if (attendee.name) answer.setParameter("cn", attendee.name);
  event.addProperty(answer);
  if (comment) event.addPropertyWithValue("comment", comment);
  reply.addSubcomponent(event);
  return reply.toString().replace(/\r?\n/g, "\r\n");
}
