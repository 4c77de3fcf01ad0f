// Where attachment bytes live. Today every attachment's bytes are a bytea column in Postgres
// (attachments.content for mail received and sent, draft_attachments.content for files waiting on a
// draft); every read and write of those bytes goes through this file, so moving them elsewhere
// (object storage) changes this file and nothing that calls it.
import type { Db } from "../db.ts";
import { newId } from "./ids.ts";

/** A file as it goes into a message. */
export type OutgoingFile = { filename: string; contentType: string; content: Uint8Array };

export async function sha256Hex(content: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", content as Uint8Array<ArrayBuffer>);
  return Buffer.from(digest).toString("hex");
}

/** The bytes of one stored attachment of a message (received or sent), or null. */
export async function messageAttachmentContent(db: Db, messageId: string, attachmentId: string): Promise<Uint8Array | null> {
  const [row] = await db`select content from attachments where id = ${attachmentId} and message_id = ${messageId}`;
  return row ? (row.content as Uint8Array) : null;
}

/** Every file of a message, in its stored order (forwarding sends them along). */
export async function messageAttachmentFiles(db: Db, messageId: string): Promise<OutgoingFile[]> {
  const rows = await db`
    select filename, content_type, content from attachments where message_id = ${messageId} order by id`;
  return rows.map((row) => ({ filename: row.filename ?? "attachment", contentType: row.content_type, content: row.content }));
}

/** Every file waiting on a draft, in the order they were added. */
export async function draftAttachmentFiles(db: Db, draftId: string): Promise<OutgoingFile[]> {
  const rows = await db`
    select filename, content_type, content from draft_attachments where draft_id = ${draftId} order by created_at, id`;
  return rows.map((row) => ({ filename: row.filename, contentType: row.content_type, content: row.content }));
}

/** Stores a file on a draft; returns its row without the bytes. */
export async function storeDraftAttachment(
  db: Db,
  row: { draftId: string; accountId: string; file: OutgoingFile; sha256: string; sourceAttachmentId: string | null },
) {
  const [stored] = await db`
    insert into draft_attachments (id, draft_id, account_id, filename, content_type, size, sha256, source_attachment_id, content, created_at)
    values (${newId("dat")}, ${row.draftId}, ${row.accountId}, ${row.file.filename}, ${row.file.contentType},
      ${row.file.content.byteLength}, ${row.sha256}, ${row.sourceAttachmentId}, ${row.file.content}, clock_timestamp())
    returning id, draft_id, filename, content_type, size, sha256, source_attachment_id, created_at`;
  return stored!;
}

/** Records the files a sent message carried, so reading the message lists them as for received mail. */
export async function storeMessageAttachments(db: Db, messageId: string, files: OutgoingFile[]): Promise<void> {
  for (const file of files) {
    await db`
      insert into attachments (id, message_id, filename, content_type, size, sha256, disposition, content)
      values (${newId("att")}, ${messageId}, ${file.filename}, ${file.contentType}, ${file.content.byteLength},
        ${await sha256Hex(file.content)}, 'attachment', ${file.content})`;
  }
}

/** Copies every attachment of a message onto a draft (a forward held for approval carries them). */
export async function copyMessageAttachmentsToDraft(db: Db, messageId: string, draftId: string, accountId: string): Promise<void> {
  const rows = await db`select id from attachments where message_id = ${messageId} order by id`;
  for (const { id } of rows) {
    await db`
      insert into draft_attachments (id, draft_id, account_id, filename, content_type, size, sha256, source_attachment_id, content, created_at)
      select ${newId("dat")}, ${draftId}, ${accountId}, coalesce(filename, 'attachment'), content_type, size, sha256, id, content, clock_timestamp()
      from attachments where id = ${id}`;
  }
}
