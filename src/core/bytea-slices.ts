// Large bytea values read a slice at a time. postgres.js receives a row whole and decodes a bytea
// field in one synchronous step (hex text twice its size, then the bytes): for a message of many
// megabytes every request of the process (`/readyz` too) waited that out. A reader selects
// `content` only when it is small (`smallContent`) and reads a large one here, a slice per
// statement, the event loop free between them.
import { Buffer } from "node:buffer";
import type { Db } from "../db.ts";

const SLICE_BYTES = 1024 * 1024;

/** The columns `content` (null when larger than a slice) and `content_size` for a bytea column (e.g. "r.content"). */
export function smallContent(db: Db, column: string) {
  return db`case when octet_length(${db(column)}) <= ${SLICE_BYTES} then ${db(column)} end as content, octet_length(${db(column)}) as content_size`;
}

/**
 * The row's bytes: `content` as selected when it came whole (smallContent), else read from its
 * row (`table`: one with `id` and `content` columns) a slice at a time. Null when the row holds
 * none (in the object store, or pruned).
 */
export async function fullContent(
  db: Db,
  table: string,
  id: string,
  row: { content: Uint8Array | null; content_size: number | null },
): Promise<Uint8Array | null> {
  if (row.content !== null || row.content_size === null) return row.content;
  const bytes = new Uint8Array(row.content_size);
  for (let at = 0; at < bytes.byteLength; at += SLICE_BYTES) {
    // As base64 text (a third smaller than the hex postgres.js would receive for a bytea).
    const [slice] =
      await db`select encode(substring(content from ${at + 1} for ${SLICE_BYTES}), 'base64') as part from ${db(table)} where id = ${id}`;
    const part = typeof slice?.part === "string" ? Buffer.from(slice.part, "base64") : undefined;
    // Content is never rewritten in place; a row that lost it meanwhile was pruned.
    if (!part || part.byteLength !== Math.min(SLICE_BYTES, bytes.byteLength - at)) return null;
    bytes.set(part, at);
  }
  return bytes;
}
