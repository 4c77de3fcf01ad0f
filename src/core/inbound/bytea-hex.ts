// Bytes for a bytea column, as the hex text PostgreSQL reads with decode(…, 'hex'). postgres.js
// encodes a bytea parameter in one synchronous step (a copy, then a hex string twice its size), and
// for a message of many megabytes every request of the process waited it out; the callers here
// hand it a MiB or so at a time (staged-content.ts), each encoded by one native call: building the
// hex in smaller parts and joining them allocated the whole string a second time.
import { Buffer } from "node:buffer";
import { type Bytes, joined } from "../../byte-blocks.ts";

/** The bytes as lower-case hex. */
export function hexOf(bytes: Bytes): string {
  const one = joined(bytes);
  return Buffer.from(one.buffer, one.byteOffset, one.byteLength).toString("hex");
}
