// Where attachment bytes live: a bytea column in Postgres (attachments.content for mail received
// and sent, draft_attachments.content for files waiting on a draft), or, for received mail with
// BLOB_STORE_URL set, an object in the store (attachments.blob_key; read through content.ts).
// Every read and write of those bytes goes through this file.
import type { Db } from "../db.ts";
import { contentBytes } from "./content.ts";
import { newId } from "./ids.ts";
import type { Tenant } from "./principal.ts";
import type { Services } from "./services.ts";

/** What reading content needs: the object store (or none) and a logger. */
export type ContentReader = Pick<Services, "blobs" | "log">;

/** A file as it goes into a message. */
export type OutgoingFile = { filename: string; contentType: string; content: Uint8Array };

export async function sha256Hex(content: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", content as Uint8Array<ArrayBuffer>);
  return Buffer.from(digest).toString("hex");
}

/** The bytes of one stored attachment of a message (received or sent), or null. */
export async function messageAttachmentContent(
  reader: ContentReader,
  db: Db,
  messageId: string,
  attachmentId: string,
): Promise<Uint8Array | null> {
  const [row] = await db`select content, blob_key, sha256 from attachments where id = ${attachmentId} and message_id = ${messageId}`;
  return row ? await contentBytes(reader, row as never) : null;
}

/** Every file of a message, in its stored order (forwarding sends them along). */
export async function messageAttachmentFiles(reader: ContentReader, db: Db, messageId: string): Promise<OutgoingFile[]> {
  const rows = await db`
    select filename, content_type, content, blob_key, sha256 from attachments where message_id = ${messageId} order by id`;
  return Promise.all(
    rows.map(async (row) => ({
      filename: row.filename ?? "attachment",
      contentType: row.content_type,
      content: await contentBytes(reader, row as never),
    })),
  );
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
export async function copyMessageAttachmentsToDraft(
  reader: ContentReader,
  db: Db,
  messageId: string,
  draftId: string,
  tenant: Tenant,
): Promise<void> {
  const { accountId } = tenant;
  const rows = await db`select id, blob_key, sha256 from attachments where message_id = ${messageId} order by id`;
  for (const row of rows) {
    // Bytes in the object store are read here and kept on the draft (draft files stay in PostgreSQL).
    const fromStore = row.blob_key ? await contentBytes(reader, { content: null, blob_key: row.blob_key, sha256: row.sha256 }) : null;
    await db`
      insert into draft_attachments (id, draft_id, account_id, filename, content_type, size, sha256, source_attachment_id, content, created_at)
      select ${newId("dat")}, ${draftId}, ${accountId}, coalesce(filename, 'attachment'), content_type, size, sha256, id,
        coalesce(${fromStore}::bytea, content), clock_timestamp()
      from attachments where id = ${row.id}`;
  }
}
