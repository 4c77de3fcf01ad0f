// Opaque cursors for walking back through a listing. A cursor names the position of the last item
// returned (its sort key and id), never an offset: rows inserted while a client walks do not shift
// what it has yet to see. The kind letter keeps a cursor of one listing from being read by another.
import { errors } from "./errors.ts";

export type CursorKind = "m" | "t" | "s";

/** A position: microseconds since the epoch (exact, unlike a JS Date), an id, and for ranked search the rank. */
export type Position = { micros: string; id: string; rank?: string };

const MAX_CURSOR_LENGTH = 512;

export function encodeCursor(kind: CursorKind, position: Position): string {
  const parts = [kind, position.micros, position.id, ...(position.rank !== undefined ? [position.rank] : [])];
  return Buffer.from(parts.join("|"), "utf8").toString("base64url");
}

export function decodeCursor(kind: CursorKind, cursor: string | undefined): Position | null {
  if (cursor === undefined) return null;
  const invalid = errors.validation("cursor is not a valid cursor for this listing");
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid;
  const parts = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const [k, micros, id, rank] = parts;
  if (k !== kind || !micros || !/^-?\d{1,19}$/.test(micros) || !id || !/^[a-z]{3}_[0-9a-z]{1,64}$/.test(id)) throw invalid;
  if (kind === "s") {
    if (parts.length !== 4 || !rank || !/^\d+(\.\d+)?(e-?\d+)?$/.test(rank)) throw invalid;
    return { micros, id, rank };
  }
  if (parts.length !== 3) throw invalid;
  return { micros, id };
}
