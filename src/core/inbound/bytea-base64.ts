// Bytes for a bytea column, as the base64 text PostgreSQL reads with decode(…, 'base64').
// postgres.js sends a bytea parameter as hex text, twice the bytes' size, built and encoded in one
// synchronous step; base64 is a third smaller, and the strings of a large message's slices (and the
// collector's work on them) are most of what accepting it allocates. The callers hand it a MiB or
// so at a time (staged-content.ts), each encoded by one native call.
import { Buffer } from "node:buffer";
import { type Bytes, joined } from "../../byte-blocks.ts";

/** The bytes as base64 (no line breaks). */
export function base64Of(bytes: Bytes): string {
  const one = joined(bytes);
  return Buffer.from(one.buffer, one.byteOffset, one.byteLength).toString("base64");
}
