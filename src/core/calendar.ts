// Calendar invitations: the iCalendar part of a message (text/calendar inline, as iMIP sends it,
// or an .ics attachment) read into comprehension.calendar, and the RSVP that answers it
// (POST /api/v1/messages/{id}/rsvp, core/rsvp.ts).
import type { Db } from "../db.ts";
import { type CalendarInfo, parseCalendar } from "../mail/calendar.ts";
import { type ContentReader, messageAttachmentContent } from "./attachment-bytes.ts";

/** A calendar part larger than this is not read (a real invitation is a few KiB). */
const MAX_CALENDAR_BYTES = 1024 * 1024;
const CALENDAR_PARTS = 5;

/** The message's calendar parts, in order: the text of each, with its attachment id. */
export async function calendarParts(reader: ContentReader, db: Db, messageId: string): Promise<{ id: string; text: string }[]> {
  const rows = await db`
    select id from attachments
    where message_id = ${messageId} and size <= ${MAX_CALENDAR_BYTES}
      and (lower(content_type) like 'text/calendar%' or lower(content_type) like 'application/ics%'
        or lower(coalesce(filename, '')) like '%.ics')
    order by id limit ${CALENDAR_PARTS}`;
  const parts: { id: string; text: string }[] = [];
  for (const { id } of rows) {
    const content = await messageAttachmentContent(reader, db, messageId, id);
    if (content) parts.push({ id, text: new TextDecoder().decode(content) });
  }
  return parts;
}

/** The invitation (or cancellation, or reply) a message carries, or null. */
export async function calendarOf(reader: ContentReader, db: Db, messageId: string): Promise<CalendarInfo | null> {
  for (const part of await calendarParts(reader, db, messageId)) {
    const calendar = parseCalendar(part.text);
    if (calendar) return calendar;
  }
  return null;
}
