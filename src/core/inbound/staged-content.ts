// A content column's value for the accept statement (store.ts). A small content goes into the
// statement itself, as base64 text (bytea-base64.ts). A large one is first written to
// inbound_content_slices one slice per statement, the event loop free between them, and the accept
// statement assembles it there and deletes the slices: postgres.js encodes a statement's
// parameters and writes them in one synchronous step, which for a message of many megabytes held
// every request of the process (`/readyz` too).
import { type Bytes, byteLengthOf, viewsOf } from "../../byte-blocks.ts";
import type { Db } from "../../db.ts";
import { newId } from "../ids.ts";
import { base64Of } from "./bytea-base64.ts";

const SLICE_BYTES = 1024 * 1024;

/** Slices of an accept that never ran are deleted by a later one after this long. */
const ORPHAN_HOURS = 1;

export type ContentValue = { expression: ReturnType<Db>; stagedId: string | null };

/** The SQL expression giving `bytes` in the accept statement, staging them first when large. */
export async function contentValue(sql: Db, bytes: Bytes): Promise<ContentValue> {
  if (byteLengthOf(bytes) <= SLICE_BYTES) return { expression: sql`decode(${base64Of(bytes)}, 'base64')`, stagedId: null };
  const stagedId = newId("stg");
  try {
    // A slice never spans two blocks (no copy to join them); the statements are awaited one by
    // one, so the event loop runs between them.
    let seq = 0;
    for (const slice of viewsOf(bytes, SLICE_BYTES)) {
      await sql`insert into inbound_content_slices (staged_id, seq, bytes) values (${stagedId}, ${seq++}, decode(${base64Of(slice)}, 'base64'))`;
    }
  } catch (error) {
    dropStaged(sql, [stagedId]);
    throw error;
  }
  return {
    expression: sql`(select string_agg(bytes, ''::bytea order by seq) from inbound_content_slices where staged_id = ${stagedId})`,
    stagedId,
  };
}

/**
 * A common table expression for the accept statement: deletes these staged contents (their
 * values were read in the same statement's snapshot) and any left over from accepts that never ran.
 */
export function unstage(sql: Db, stagedIds: string[]) {
  return sql`unstaged as (
    delete from inbound_content_slices
    where staged_id = any(${stagedIds}::text[]) or staged_at < now() - make_interval(hours => ${ORPHAN_HOURS}))`;
}

/** After a failed accept statement: its slices go now rather than in an hour. */
export function dropStaged(sql: Db, stagedIds: string[]): void {
  if (stagedIds.length === 0) return;
  void sql`delete from inbound_content_slices where staged_id = any(${stagedIds}::text[])`.catch(() => {});
}
