// Bodies above BLOB_STORE_BODY_THRESHOLD in the object store, beside raw messages and attachments
// (content.ts): the whole text (UTF-8) is an object, and the row keeps the threshold's worth of it
// cut at a character boundary, so lists, snippets and the search document keep working in SQL,
// plus the object's key and SHA-256. Readers that need the whole text call fullBodies
// (content.ts). Without a store, or under the threshold, the column holds the whole body as before.

import { sha256HexNow } from "../secrets.ts";
import { deleteQueuedBlobs, fullBodies, queueBlobDeletions, type StoredBodies } from "./content.ts";
import type { Services } from "./services.ts";

export const bodyKey = (messageId: string, part: "raw" | "clean") => `body/${messageId}/${part}`;

/** A body too long for its row: the prefix the row keeps, and the whole text's bytes and SHA-256. */
export type LongBody = { prefix: string; bytes: Uint8Array; sha256: string };
export type LongBodies = { raw: LongBody | null; clean: LongBody | null };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** At most maxBytes of the text's UTF-8 bytes, never half a character. */
export function utf8Prefix(bytes: Uint8Array, maxBytes: number): string {
  if (bytes.byteLength <= maxBytes) return decoder.decode(bytes);
  let end = maxBytes;
  // The byte at `end` is the first one left out: while it continues a character, that character
  // started inside the prefix and goes too.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

function longBody(text: string | null, threshold: number): LongBody | null {
  // A UTF-8 character takes at most 3 bytes per UTF-16 unit: anything this short fits.
  if (text === null || text.length * 3 <= threshold) return null;
  const bytes = encoder.encode(text);
  if (bytes.byteLength <= threshold) return null;
  return { prefix: utf8Prefix(bytes, threshold), bytes, sha256: sha256HexNow(bytes) };
}

/** Which of a message's bodies go to the store: none without one. */
export function longBodies(
  svc: Pick<Services, "blobs" | "config">,
  body: { body_raw: string | null; body_clean: string | null },
): LongBodies {
  const threshold = svc.config.blobStore?.bodyThreshold;
  if (!svc.blobs || threshold === undefined) return { raw: null, clean: null };
  return { raw: longBody(body.body_raw, threshold), clean: longBody(body.body_clean, threshold) };
}

/** The row's body columns for a message, and the objects to write (and check) before it commits. */
export function bodyRow(
  messageId: string,
  body: { body_raw: string | null; body_clean: string | null },
  long: LongBodies,
): { columns: StoredBodies; objects: { key: string; bytes: Uint8Array }[] } {
  const objects: { key: string; bytes: Uint8Array }[] = [];
  const part = (name: "raw" | "clean", whole: string | null, stored: LongBody | null) => {
    if (stored === null) return { text: whole, key: null, sha256: null };
    const key = bodyKey(messageId, name);
    objects.push({ key, bytes: stored.bytes });
    return { text: stored.prefix, key, sha256: stored.sha256 };
  };
  const raw = part("raw", body.body_raw, long.raw);
  const clean = part("clean", body.body_clean, long.clean);
  return {
    columns: {
      body_raw: raw.text,
      body_clean: clean.text,
      body_raw_key: raw.key,
      body_raw_sha256: raw.sha256,
      body_clean_key: clean.key,
      body_clean_sha256: clean.sha256,
    },
    objects,
  };
}

/**
 * `content move` for bodies: to the store, every body above the threshold of a message that is
 * not purged and not mid-send (a send that fails deletes its row); back, every body the store
 * holds. Row by row, each object written (and checked) before its row lets go of the text, or
 * read (and checked) before its row takes it back, so a stopped run resumes by running it again.
 * Returns how many messages moved; stops after `limit`.
 */
export async function moveBodies(
  svc: Services,
  direction: "to-store" | "to-database",
  options: { batch?: number; limit?: number } = {},
): Promise<number> {
  const { sql } = svc;
  const blobs = svc.blobs;
  const threshold = svc.config.blobStore?.bodyThreshold;
  if (!blobs || threshold === undefined) throw new Error("BLOB_STORE_URL is not set: there is no object store to move bodies to or from");
  const batch = options.batch ?? 100;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  let moved = 0;
  for (;;) {
    const left = Math.min(batch, limit - moved);
    if (left <= 0) break;
    const rows =
      direction === "to-store"
        ? await sql`
            select id, body_raw, body_clean, body_raw_key, body_clean_key from messages
            where purged_at is null and (delivery_status is null or delivery_status = 'sent')
              and ((body_raw_key is null and octet_length(body_raw) > ${threshold})
                or (body_clean_key is null and octet_length(body_clean) > ${threshold}))
            order by id limit ${left}`
        : await sql`
            select id, body_raw, body_clean, body_raw_key, body_raw_sha256, body_clean_key, body_clean_sha256 from messages
            where body_raw_key is not null or body_clean_key is not null
            order by id limit ${left}`;
    if (rows.length === 0) break;
    for (const row of rows) {
      if (direction === "to-store") await bodiesToStore(svc, row as never);
      else await bodiesToDatabase(svc, row as unknown as StoredBodies & { id: string });
      moved++;
    }
  }
  if (direction === "to-database") for (let deleted = 1; deleted > 0; ) deleted = await deleteQueuedBlobs(svc);
  return moved;
}

async function bodiesToStore(
  svc: Services,
  row: { id: string; body_raw: string | null; body_clean: string | null; body_raw_key: string | null; body_clean_key: string | null },
): Promise<void> {
  const { sql } = svc;
  // A part already in the store keeps its object; its column is only the prefix.
  const long = longBodies(svc, {
    body_raw: row.body_raw_key === null ? row.body_raw : null,
    body_clean: row.body_clean_key === null ? row.body_clean : null,
  });
  const { columns, objects } = bodyRow(row.id, row, long);
  await Promise.all(objects.map(({ key, bytes }) => svc.blobs!.put(key, bytes)));
  const set = (part: "raw" | "clean") =>
    long[part] === null
      ? sql``
      : part === "raw"
        ? sql`body_raw = ${columns.body_raw}, body_raw_key = ${columns.body_raw_key}, body_raw_sha256 = ${columns.body_raw_sha256},`
        : sql`body_clean = ${columns.body_clean}, body_clean_key = ${columns.body_clean_key}, body_clean_sha256 = ${columns.body_clean_sha256},`;
  const taken = await sql`
    update messages set ${set("raw")} ${set("clean")} id = id
    where id = ${row.id} and purged_at is null
      and body_raw_key is not distinct from ${row.body_raw_key} and body_clean_key is not distinct from ${row.body_clean_key}
    returning id`;
  // Purged (or moved by another run) meanwhile: nothing names what this wrote.
  if (taken.length === 0) {
    await queueBlobDeletions(
      sql,
      objects.map(({ key }) => key),
    );
    await deleteQueuedBlobs(svc);
  }
}

async function bodiesToDatabase(svc: Services, row: StoredBodies & { id: string }): Promise<void> {
  const whole = await fullBodies(svc, row);
  await svc.sql.begin(async (tx) => {
    const taken = await tx`
      update messages set body_raw = ${whole.body_raw}, body_clean = ${whole.body_clean},
        body_raw_key = null, body_raw_sha256 = null, body_clean_key = null, body_clean_sha256 = null
      where id = ${row.id} and body_raw_key is not distinct from ${row.body_raw_key}
        and body_clean_key is not distinct from ${row.body_clean_key}
      returning id`;
    if (taken.length > 0) await queueBlobDeletions(tx, [row.body_raw_key, row.body_clean_key]);
  });
}
