// SHA-256 of a large buffer a slice at a time, with a turn of the event loop between slices: one
// call over a message of many megabytes holds every request of the process (`/readyz` too) while
// it runs. Several digests that differ only in where they start (the whole message, and the
// message below its trace headers) are taken in the same pass over the bytes.
import { createHash } from "node:crypto";
import { type Bytes, byteLengthOf, viewsOf } from "./byte-blocks.ts";

const HASH_SLICE_BYTES = 1024 * 1024;

/** For each offset, the hex SHA-256 of `bytes` from that offset to the end. */
export async function sha256HexInSlices(bytes: Bytes, offsets: number[] = [0]): Promise<string[]> {
  const hashes = offsets.map(() => createHash("sha256"));
  const total = byteLengthOf(bytes);
  let at = 0;
  for (const view of viewsOf(bytes, HASH_SLICE_BYTES)) {
    const end = at + view.byteLength;
    offsets.forEach((from, i) => {
      if (end > from) hashes[i]!.update(view.subarray(Math.max(at, from) - at));
    });
    at = end;
    if (end < total) await new Promise((resolve) => setImmediate(resolve));
  }
  return hashes.map((hash) => hash.digest("hex"));
}
