// Bytes for a bytea column, as the hex text PostgreSQL reads with decode(…, 'hex'). postgres.js
// encodes a bytea parameter in one synchronous step (a copy, then a hex string twice its size), and
// for a message of many megabytes every request of the process waited it out; here the hex is built
// a slice at a time, with a turn of the event loop between slices.
import { Buffer } from "node:buffer";

const HEX_SLICE_BYTES = 512 * 1024;

/** The bytes as lower-case hex, built in slices so that other work runs in between. */
export async function hexInSlices(bytes: Uint8Array): Promise<string> {
  const parts: string[] = [];
  for (let at = 0; at < bytes.byteLength; at += HEX_SLICE_BYTES) {
    const end = Math.min(at + HEX_SLICE_BYTES, bytes.byteLength);
    parts.push(Buffer.from(bytes.buffer, bytes.byteOffset + at, end - at).toString("hex"));
    if (end < bytes.byteLength) await new Promise((resolve) => setImmediate(resolve));
  }
  return parts.join("");
}
