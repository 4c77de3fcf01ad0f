// Calendar invitations: inbound iMIP written the way Google Calendar, Outlook and Apple Calendar
// write it (VTIMEZONE blocks with IANA and Windows names, RRULE, all-day DATE events, inline
// text/calendar and .ics attachments) read into comprehension.calendar; POST /messages/{id}/rsvp
// sends a REPLY that reaches the SMTP sink and that ical.js parses back with the right PARTSTAT.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import ICAL from "ical.js";
import { updateMailboxSettings } from "../../src/core/mailboxes.ts";
import { addSuppression } from "../../src/core/outbound/suppressions.ts";
import { parseCalendar } from "../../src/mail/calendar.ts";
import { makeAccount, makeKey, makeMailbox } from "../support/context.ts";
import { receive } from "../support/mail-fixtures.ts";
import { type Outbound, parseMail, rawHeader, startOutbound } from "../support/outbound.ts";

setDefaultTimeout(30_000);

let o: Outbound;

beforeAll(async () => {
  o = await startOutbound();
});

afterAll(async () => {
  await o.close();
});

const req = (method: string, path: string, body?: unknown, key = o.owner.key) => o.ctx.request(method, `/api/v1${path}`, { key, body });
const crlf = (text: string) => text.trim().replace(/\r?\n/g, "\r\n") + "\r\n";

const BERLIN = `BEGIN:VTIMEZONE
TZID:Europe/Berlin
X-LIC-LOCATION:Europe/Berlin
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE`;

const google = (attendee: string) =>
  crlf(`BEGIN:VCALENDAR
PRODID:-//Google Inc//Google Calendar 70.9054//EN
VERSION:2.0
CALSCALE:GREGORIAN
METHOD:REQUEST
${BERLIN}
BEGIN:VEVENT
DTSTART;TZID=Europe/Berlin:20240506T100000
DTEND;TZID=Europe/Berlin:20240506T103000
RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10
DTSTAMP:20240501T120000Z
ORGANIZER;CN=Alice Example:mailto:alice@example.com
UID:4f1c2a9e8b7d@google.com
ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE
 ;CN=Alice Example;X-NUM-GUESTS=0:mailto:alice@example.com
ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=
 TRUE;CN=${attendee};X-NUM-GUESTS=0:mailto:${attendee}
X-MICROSOFT-CDO-OWNERAPPTID:-1234567
CREATED:20240501T115900Z
DESCRIPTION:Weekly sync on the roadmap.\\n\\nJoin: https://meet.example/abc
LAST-MODIFIED:20240501T120000Z
LOCATION:Room Spree\\, 2nd floor
SEQUENCE:0
STATUS:CONFIRMED
SUMMARY:Roadmap sync
TRANSP:OPAQUE
END:VEVENT
END:VCALENDAR`);

const outlook = (attendee: string) =>
  crlf(`BEGIN:VCALENDAR
METHOD:REQUEST
PRODID:Microsoft Exchange Server 2010
VERSION:2.0
BEGIN:VTIMEZONE
TZID:W. Europe Standard Time
BEGIN:STANDARD
DTSTART:16010101T030000
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T020000
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3
END:DAYLIGHT
END:VTIMEZONE
BEGIN:VEVENT
ORGANIZER;CN=Bob Builder:mailto:bob@contoso.example
ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=${attendee}:mailto:${attendee}
DESCRIPTION;LANGUAGE=en-US:Quarterly review\\n
UID:040000008200E00074C5B7101A82E00800000000D0C7A3B2C3A0DA01000000000000000010000000
SUMMARY;LANGUAGE=en-US:Q2 review
DTSTART;TZID=W. Europe Standard Time:20240115T140000
DTEND;TZID=W. Europe Standard Time:20240115T150000
CLASS:PUBLIC
PRIORITY:5
DTSTAMP:20240110T090000Z
TRANSP:OPAQUE
STATUS:CONFIRMED
SEQUENCE:2
LOCATION;LANGUAGE=en-US:Teams
X-MICROSOFT-CDO-APPT-SEQUENCE:2
X-MICROSOFT-CDO-BUSYSTATUS:TENTATIVE
X-MICROSOFT-CDO-IMPORTANCE:1
BEGIN:VALARM
DESCRIPTION:REMINDER
TRIGGER;RELATED=START:-PT15M
ACTION:DISPLAY
END:VALARM
END:VEVENT
END:VCALENDAR`);

const apple = (attendee: string) =>
  crlf(`BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Apple Inc.//macOS 14.4//EN
CALSCALE:GREGORIAN
METHOD:REQUEST
BEGIN:VEVENT
TRANSP:TRANSPARENT
DTEND;VALUE=DATE:20240512
ORGANIZER;CN="Carla Apple";EMAIL="carla@icloud.example":mailto:carla@icloud.example
UID:0B9E7F4C-2D61-4A7C-9F3E-5C1D2B3A4F5E
DTSTAMP:20240502T081500Z
LOCATION:Lake house
SEQUENCE:1
SUMMARY:Team offsite
ATTENDEE;CN="Carla Apple";CUTYPE=INDIVIDUAL;EMAIL="carla@icloud.example";PARTSTAT=ACCEPTED;ROLE=CHAIR:mailto:carla@icloud.example
ATTENDEE;CN="${attendee}";CUTYPE=INDIVIDUAL;EMAIL="${attendee}";PARTSTAT=NEEDS-ACTION;ROLE=REQ-PARTICIPANT;RSVP=TRUE:mailto:${attendee}
DTSTART;VALUE=DATE:20240510
CREATED:20240502T081400Z
END:VEVENT
END:VCALENDAR`);

/** Google: the calendar inline (multipart/alternative) and again as invite.ics. */
function googleMail(to: string): string {
  const ics = google(to);
  return crlf(`From: Alice Example <alice@example.com>
To: ${to}
Subject: Invitation: Roadmap sync @ Weekly on Monday, Wednesday
Date: Wed, 1 May 2024 12:00:00 +0000
Message-ID: <${crypto.randomUUID()}@google.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="mixed"

--mixed
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset="UTF-8"

You have been invited to Roadmap sync.
--alt
Content-Type: text/calendar; charset="UTF-8"; method=REQUEST
Content-Transfer-Encoding: 7bit

${ics.trimEnd()}
--alt--
--mixed
Content-Type: application/ics; name="invite.ics"
Content-Disposition: attachment; filename="invite.ics"
Content-Transfer-Encoding: base64

${Buffer.from(ics).toString("base64").replace(/.{76}/g, "$&\n")}
--mixed--`);
}

/** Outlook: text and the calendar (base64) as alternatives. */
function outlookMail(to: string): string {
  return crlf(`From: Bob Builder <bob@contoso.example>
To: ${to}
Subject: Q2 review
Date: Wed, 10 Jan 2024 09:00:00 +0000
Message-ID: <${crypto.randomUUID()}@contoso.example>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="_000_"

--_000_
Content-Type: text/plain; charset="us-ascii"

Quarterly review
--_000_
Content-Type: text/calendar; charset="utf-8"; method=REQUEST
Content-Transfer-Encoding: base64

${Buffer.from(outlook(to)).toString("base64").replace(/.{76}/g, "$&\n")}
--_000_--`);
}

/** Apple: the calendar as an attachment only. */
function appleMail(to: string): string {
  return crlf(`From: Carla Apple <carla@icloud.example>
To: ${to}
Subject: Invitation: Team offsite (May 10, 2024)
Date: Thu, 2 May 2024 08:15:00 +0000
Message-ID: <${crypto.randomUUID()}@icloud.example>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="Apple-Mail"

--Apple-Mail
Content-Type: text/plain; charset=us-ascii

Carla Apple has invited you to Team offsite.
--Apple-Mail
Content-Disposition: attachment; filename=iCal-20240502-081500.ics
Content-Type: text/calendar; method=REQUEST; name="iCal-20240502-081500.ics"
Content-Transfer-Encoding: quoted-printable

${apple(to)
  .trimEnd()
  .replace(/=/g, "=3D")
  .replace(/^(.{70})(.+)$/gm, "$1=\n$2")}
--Apple-Mail--`);
}

async function lastReply() {
  const delivered = o.sink.messages.at(-1)!;
  const parsed = await parseMail(delivered.raw);
  const part = delivered.raw.toString("utf8");
  const calendar = parsed.attachments.find((a) => a.contentType === "text/calendar");
  const text = calendar ? calendar.content.toString("utf8") : null;
  return { delivered, parsed, text, raw: part };
}

function partstatOf(text: string, email: string): { method: string; partstat: string; uid: string; sequence: number } {
  const root = new ICAL.Component(ICAL.parse(text));
  const event = root.getFirstSubcomponent("vevent")!;
  const attendee = event.getAllProperties("attendee").find((p) => String(p.getFirstValue()).toLowerCase() === `mailto:${email}`)!;
  return {
    method: String(root.getFirstPropertyValue("method")),
    partstat: String(attendee.getParameter("partstat")),
    uid: String(event.getFirstPropertyValue("uid")),
    sequence: Number(event.getFirstPropertyValue("sequence") ?? 0),
  };
}

describe("reading invitations into comprehension.calendar", () => {
  test("Google: IANA zone from its VTIMEZONE, weekly recurrence in words, attendees and their status", async () => {
    const id = await receive(o.ctx, o.mailbox.id, googleMail(o.mailbox.address));
    const calendar = (await req("GET", `/messages/${id}`)).body.comprehension.calendar;
    expect(calendar).toMatchObject({
      method: "REQUEST",
      uid: "4f1c2a9e8b7d@google.com",
      sequence: 0,
      summary: "Roadmap sync",
      location: "Room Spree, 2nd floor",
      status: "CONFIRMED",
      start: { utc: "2024-05-06T08:00:00.000Z", local: "2024-05-06T10:00:00", time_zone: "Europe/Berlin", all_day: false },
      end: { utc: "2024-05-06T08:30:00.000Z", time_zone: "Europe/Berlin" },
      organizer: { email: "alice@example.com", name: "Alice Example" },
      recurrence: { rule: "FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE", text: "every week on Monday and Wednesday, 10 times" },
    });
    expect(calendar.attendees).toEqual([
      { email: "alice@example.com", name: "Alice Example", status: "accepted", role: "req-participant", rsvp: true },
      { email: o.mailbox.address, name: o.mailbox.address, status: "needs-action", role: "req-participant", rsvp: true },
    ]);
  });

  test("Outlook: a Windows zone name resolved through its VTIMEZONE (winter: UTC+1)", async () => {
    const id = await receive(o.ctx, o.mailbox.id, outlookMail(o.mailbox.address));
    const calendar = (await req("GET", `/messages/${id}`)).body.comprehension.calendar;
    expect(calendar).toMatchObject({
      method: "REQUEST",
      summary: "Q2 review",
      sequence: 2,
      start: { utc: "2024-01-15T13:00:00.000Z", time_zone: "W. Europe Standard Time" },
      end: { utc: "2024-01-15T14:00:00.000Z" },
      organizer: { email: "bob@contoso.example", name: "Bob Builder" },
      recurrence: null,
    });
  });

  test("Apple: an all-day event as an .ics attachment", async () => {
    const id = await receive(o.ctx, o.mailbox.id, appleMail(o.mailbox.address));
    const calendar = (await req("GET", `/messages/${id}`)).body.comprehension.calendar;
    expect(calendar).toMatchObject({
      method: "REQUEST",
      summary: "Team offsite",
      start: { local: "2024-05-10", all_day: true, time_zone: null },
      end: { local: "2024-05-12", all_day: true },
      organizer: { email: "carla@icloud.example", name: "Carla Apple" },
    });
  });

  test("CANCEL and a TZID without its VTIMEZONE (the IANA database resolves it); garbage is no calendar", () => {
    const cancel = parseCalendar(
      crlf(`BEGIN:VCALENDAR
VERSION:2.0
METHOD:CANCEL
BEGIN:VEVENT
UID:gone@example.com
SEQUENCE:3
STATUS:CANCELLED
DTSTART;TZID=America/New_York:20240704T090000
SUMMARY:Cancelled
END:VEVENT
END:VCALENDAR`),
    );
    expect(cancel).toMatchObject({
      method: "CANCEL",
      status: "CANCELLED",
      sequence: 3,
      start: { utc: "2024-07-04T13:00:00.000Z", time_zone: "America/New_York" },
    });
    expect(parseCalendar("not a calendar")).toBeNull();
    expect(parseCalendar(crlf("BEGIN:VCALENDAR\nVERSION:2.0\nEND:VCALENDAR"))).toBeNull();
    // A text/calendar part of a few stray bytes (the SMTP fuzz corpus sends them) is no calendar, not a crash.
    for (const stray of ["", "x", "\r\n", "::", "BEGIN:VEVENT"]) expect(parseCalendar(stray)).toBeNull();
  });
});

describe("rsvp", () => {
  for (const [maker, response, partstat, organizer] of [
    [googleMail, "accepted", "ACCEPTED", "alice@example.com"],
    [outlookMail, "declined", "DECLINED", "bob@contoso.example"],
    [appleMail, "tentative", "TENTATIVE", "carla@icloud.example"],
  ] as const) {
    test(`${response}: the organizer receives an iMIP REPLY with PARTSTAT=${partstat}`, async () => {
      const id = await receive(o.ctx, o.mailbox.id, maker(o.mailbox.address));
      const invitation = (await req("GET", `/messages/${id}`)).body;
      const sent = await req("POST", `/messages/${id}/rsvp`, { response, comment: "Looking forward", client_id: `rsvp-${response}` });
      expect(sent.status).toBe(201);
      expect(sent.body.thread_id).toBe(invitation.thread_id);
      const { delivered, parsed, text } = await lastReply();
      expect(delivered.to).toEqual([organizer]);
      expect(rawHeader(delivered.raw, "In-Reply-To")).toBe(invitation.rfc_message_id);
      expect(delivered.raw.toString()).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=REPLY/i);
      expect(parsed.text).toContain(`${o.mailbox.address} has`);
      const reply = partstatOf(text!, o.mailbox.address);
      expect(reply).toMatchObject({
        method: "REPLY",
        partstat,
        uid: invitation.comprehension.calendar.uid,
        sequence: invitation.comprehension.calendar.sequence,
      });
      // The library reads our REPLY as it reads any: same event, same start instant.
      const back = parseCalendar(text!)!;
      expect(back.start?.utc).toBe(invitation.comprehension.calendar.start.utc);
      expect(back.organizer?.email).toBe(organizer);
      // A retry with the client_id replays.
      expect(
        (await req("POST", `/messages/${id}/rsvp`, { response, comment: "Looking forward", client_id: `rsvp-${response}` })).status,
      ).toBe(200);
    });
  }

  test("through send's checks: suppression, and approval holds the REPLY as reply.ics", async () => {
    const id = await receive(o.ctx, o.mailbox.id, googleMail(o.mailbox.address));
    await addSuppression(o.ctx.sql, { accountId: o.owner.accountId, address: "alice@example.com", reason: "complaint" });
    expect((await req("POST", `/messages/${id}/rsvp`, { response: "accepted" })).status).toBe(422);
    await o.ctx.sql`delete from suppressions where address = 'alice@example.com'`;

    const gated = await makeMailbox(o.ctx, o.owner, "gated-cal");
    await updateMailboxSettings(o.ctx.sql, o.owner, gated.id, { requireApproval: true });
    const gatedId = await receive(o.ctx, gated.id, googleMail(gated.address));
    const held = await req("POST", `/messages/${gatedId}/rsvp`, { response: "declined" });
    expect(held).toMatchObject({ status: 202, body: { status: "pending_approval" } });
    const files = (await req("GET", `/drafts/${held.body.draft_id}/attachments`)).body.attachments;
    expect(files).toEqual([expect.objectContaining({ filename: "reply.ics", content_type: "text/calendar; method=REPLY" })]);
  });

  test("errors: no invitation, an outbound message, a bad response, unknown ids", async () => {
    const plain = await receive(
      o.ctx,
      o.mailbox.id,
      crlf(`From: x@example.org\nTo: ${o.mailbox.address}\nSubject: hi\n\nNo calendar here.`),
    );
    expect(await req("POST", `/messages/${plain}/rsvp`, { response: "accepted" })).toMatchObject({
      status: 400,
      body: { error: "the message holds no calendar invitation (METHOD:REQUEST) to answer" },
    });
    const sent = await o.send({ mailbox_id: o.mailbox.id, to: "x@example.org", text: "out" });
    expect((await req("POST", `/messages/${sent.body.id}/rsvp`, { response: "accepted" })).status).toBe(400);
    const id = await receive(o.ctx, o.mailbox.id, googleMail(o.mailbox.address));
    expect((await req("POST", `/messages/${id}/rsvp`, { response: "maybe" })).status).toBe(400);
    expect((await req("POST", `/messages/${id}/rsvp`, { response: "accepted", comment: "two\nlines" })).status).toBe(400);
    expect(await req("POST", `/messages/msg_unknown/rsvp`, { response: "accepted" })).toMatchObject({
      status: 404,
      body: { error: "message not found" },
    });
  });

  test("security: another account, a key bound elsewhere, a key without can_send", async () => {
    const id = await receive(o.ctx, o.mailbox.id, googleMail(o.mailbox.address));
    const missing = await req("POST", `/messages/msg_unknown/rsvp`, { response: "accepted" });
    const stranger = await makeAccount(o.ctx);
    expect((await req("POST", `/messages/${id}/rsvp`, { response: "accepted" }, stranger.key)).text).toBe(missing.text);
    const other = await makeMailbox(o.ctx, o.owner, "cal-other");
    const bound = await makeKey(o.ctx, { accountId: o.owner.accountId, scope: "api", mailboxId: other.id });
    expect((await req("POST", `/messages/${id}/rsvp`, { response: "accepted" }, bound)).text).toBe(missing.text);
    const readOnly = await makeKey(o.ctx, { accountId: o.owner.accountId, scope: "api", canSend: false });
    expect((await req("POST", `/messages/${id}/rsvp`, { response: "accepted" }, readOnly)).body).toEqual({
      error: "this api key cannot send",
      code: "key_scope",
    });
  });
});
