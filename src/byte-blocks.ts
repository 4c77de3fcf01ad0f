// A large message is kept as the blocks it arrived in (about a MiB each) rather than joined into
// one buffer: joining copies many megabytes in one synchronous step, and the allocation brings the
// collector's pauses with it, during which every request of the process (`/readyz` too) waits.
// Hashing, parsing and staging read the blocks in turn; only callers that need one buffer join.
import { Buffer } from "node:buffer";

/** Bytes as one buffer or as consecutive blocks. */
export type Bytes = Uint8Array | readonly Uint8Array[];

export const blocksOf = (bytes: Bytes): readonly Uint8Array[] => (bytes instanceof Uint8Array ? [bytes] : bytes);

export const byteLengthOf = (bytes: Bytes): number =>
  bytes instanceof Uint8Array ? bytes.byteLength : bytes.reduce((sum, block) => sum + block.byteLength, 0);

/** One buffer; a copy only when there are several blocks. */
export function joined(bytes: Bytes): Uint8Array {
  if (bytes instanceof Uint8Array) return bytes;
  return bytes.length === 1 ? bytes[0]! : Buffer.concat(bytes as Uint8Array[]);
}

/** The bytes as views of at most `size` bytes each, in order (no copies). */
export function* viewsOf(bytes: Bytes, size: number): Generator<Uint8Array> {
  for (const block of blocksOf(bytes)) {
    for (let at = 0; at < block.byteLength; at += size) yield block.subarray(at, Math.min(at + size, block.byteLength));
  }
}
