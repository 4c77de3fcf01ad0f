// The one way to message content bytes (raw messages and attachments) wherever they live: a row
// keeps them in `content`, or names an object in the store (`blob_key`, BLOB_STORE_URL). Writers
// put the objects before the transaction that records the rows commits (so a 250 never stands on
// bytes only in memory); readers (API, dashboard, screening, attachment reading, bounces) call
// contentBytes. A store that cannot be read is a 503 to a reader and a retry to a job, never a 500.
// Bodies above the store's threshold are read the same way, through fullBodies (body-objects.ts
// writes and moves them).

import type { Db } from "../db.ts";
import { sha256HexNow } from "../secrets.ts";
import { BlobMissing, BlobStoreUnavailable } from "./blob-store.ts";
import { errors } from "./errors.ts";
import type { Services } from "./services.ts";

export const rawKey = (rawId: string) => `raw/${rawId}`;
export const attachmentKey = (attachmentId: string) => `att/${attachmentId}`;

export type StoredContent = { content: Uint8Array | null; blob_key: string | null; sha256?: string | null };

/** The bytes of a row's content; throws errors.contentStoreUnavailable() (503) when they cannot be read. */
export async function contentBytes(svc: Pick<Services, "blobs" | "log">, row: StoredContent): Promise<Uint8Array> {
  if (row.blob_key === null) return row.content ?? new Uint8Array();
  if (!svc.blobs) {
    svc.log.error("content.store_not_configured", { key: row.blob_key });
    throw errors.contentStoreUnavailable();
  }
  let bytes: Uint8Array;
  try {
    bytes = await svc.blobs.get(row.blob_key);
  } catch (error) {
    if (!(error instanceof BlobStoreUnavailable) && !(error instanceof BlobMissing)) throw error;
    svc.log.error("content.store_read_failed", { key: row.blob_key, error: error.message, missing: error instanceof BlobMissing });
    throw errors.contentStoreUnavailable();
  }
  if (row.sha256 && sha256HexNow(bytes) !== row.sha256) {
    svc.log.error("content.store_checksum_mismatch", { key: row.blob_key });
    throw errors.contentStoreUnavailable();
  }
  return bytes;
}

/** A message row's bodies as stored: each column holds the whole text, or (key set) a prefix of the object's. */
export type StoredBodies = {
  body_raw: string | null;
  body_clean: string | null;
  body_raw_key: string | null;
  body_raw_sha256: string | null;
  body_clean_key: string | null;
  body_clean_sha256: string | null;
};
type BodyObjectColumns = "body_raw_key" | "body_raw_sha256" | "body_clean_key" | "body_clean_sha256";

const utf8 = new TextDecoder();

/**
 * The row with its whole bodies, read from the store where the row keeps only a prefix (and
 * checked against the SHA-256 as contentBytes does: a 503 when they cannot be read), without the
 * object columns, which no reader shows. A reader that needs one body selects only its columns.
 */
export async function fullBodies<T extends Partial<StoredBodies>>(
  svc: Pick<Services, "blobs" | "log">,
  row: T,
): Promise<Omit<T, BodyObjectColumns>> {
  const { body_raw_key = null, body_raw_sha256 = null, body_clean_key = null, body_clean_sha256 = null, ...rest } = row;
  const whole = async (key: string | null, sha256: string | null) =>
    key === null ? null : utf8.decode(await contentBytes(svc, { content: null, blob_key: key, sha256 }));
  const [bodyRaw, bodyClean] = await Promise.all([whole(body_raw_key, body_raw_sha256), whole(body_clean_key, body_clean_sha256)]);
  return { ...rest, ...(bodyRaw === null ? {} : { body_raw: bodyRaw }), ...(bodyClean === null ? {} : { body_clean: bodyClean }) };
}

/** Queues objects for deletion in the caller's transaction (they go once it commits: deleteQueuedBlobs). */
export async function queueBlobDeletions(db: Db, keys: (string | null)[]): Promise<void> {
  const present = keys.filter((key): key is string => key !== null);
  if (present.length === 0) return;
  await db`insert into blob_deletions (key) select unnest(${present}::text[]) on conflict do nothing`;
}

/** Deletes queued objects from the store; what fails stays queued. Returns how many went. */
export async function deleteQueuedBlobs(svc: Services, batch = 500): Promise<number> {
  if (!svc.blobs) return 0;
  const rows = await svc.sql`select key from blob_deletions order by queued_at limit ${batch}`;
  let deleted = 0;
  for (const { key } of rows) {
    try {
      await svc.blobs.delete(key);
      await svc.sql`delete from blob_deletions where key = ${key}`;
      deleted++;
    } catch (error) {
      svc.log.warn("content.store_delete_failed", { key, error: (error as Error).message });
      break;
    }
  }
  return deleted;
}

export type MoveReport = { direction: "to-store" | "to-database"; raw_messages: number; attachments: number };

/**
 * Moves existing content between PostgreSQL and the object store, `batch` rows at a time, row by
 * row: each object is written (and checked) before its row lets go of the bytes, or read (and
 * checked) before its row takes them back; the row's own state says what is done, so a stopped run
 * is resumed by running it again. Emptied rows (retention) are left alone. Stops after `limit` rows.
 */
export async function moveContent(
  svc: Services,
  direction: MoveReport["direction"],
  options: { batch?: number; limit?: number } = {},
): Promise<MoveReport> {
  const { sql } = svc;
  const blobs = svc.blobs;
  if (!blobs) throw new Error("BLOB_STORE_URL is not set: there is no object store to move content to or from");
  const batch = options.batch ?? 100;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const report: MoveReport = { direction, raw_messages: 0, attachments: 0 };
  for (const table of ["raw_messages", "attachments"] as const) {
    const keyOf = table === "raw_messages" ? rawKey : attachmentKey;
    for (;;) {
      const left = limit - report.raw_messages - report.attachments;
      if (left <= 0) return report;
      const rows =
        direction === "to-store"
          ? await sql`select id, content from ${sql(table)} where blob_key is null and content is not null and octet_length(content) > 0
              order by id limit ${Math.min(batch, left)}`
          : await sql`select id, blob_key, sha256 from ${sql(table)} where blob_key is not null order by id limit ${Math.min(batch, left)}`;
      if (rows.length === 0) break;
      for (const row of rows) {
        if (direction === "to-store") {
          const key = keyOf(row.id);
          await blobs.put(key, row.content);
          await sql`update ${sql(table)} set content = null, blob_key = ${key} where id = ${row.id} and blob_key is null`;
        } else {
          const bytes = await contentBytes(svc, { content: null, blob_key: row.blob_key, sha256: row.sha256 });
          const taken = await sql`
            update ${sql(table)} set content = ${bytes}, blob_key = null where id = ${row.id} and blob_key = ${row.blob_key} returning id`;
          if (taken.length > 0) await queueBlobDeletions(sql, [row.blob_key]);
        }
        report[table]++;
      }
    }
  }
  if (direction === "to-database") for (let deleted = 1; deleted > 0; ) deleted = await deleteQueuedBlobs(svc);
  return report;
}
