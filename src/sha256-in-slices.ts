// SHA-256 of a large buffer a slice at a time, with a turn of the event loop between slices: one
// call over a message of many megabytes holds every request of the process (`/readyz` too) while
// it runs. Several digests that differ only in where they start (the whole message, and the
// message below its trace headers) are taken in the same pass over the bytes.
import { createHash } from "node:crypto";

const HASH_SLICE_BYTES = 1024 * 1024;

/** For each offset, the hex SHA-256 of `bytes` from that offset to the end. */
export async function sha256HexInSlices(bytes: Uint8Array, offsets: number[] = [0]): Promise<string[]> {
  const hashes = offsets.map(() => createHash("sha256"));
  for (let at = 0; at < bytes.byteLength; at += HASH_SLICE_BYTES) {
    const end = Math.min(at + HASH_SLICE_BYTES, bytes.byteLength);
    offsets.forEach((from, i) => {
      if (end > from) hashes[i]!.update(bytes.subarray(Math.max(at, from), end));
    });
    if (end < bytes.byteLength) await new Promise((resolve) => setImmediate(resolve));
  }
  return hashes.map((hash) => hash.digest("hex"));
}
