// A message handed to mailparser a slice at a time. Given one whole buffer, the parser splits lines
// and decodes base64 of a message of many megabytes in one synchronous stretch, and every request
// of the process (`/readyz` too) waits it out; fed slices with a turn of the event loop between
// them, it does the same work in short stretches. A message that fits in one slice is handed over
// whole: a stream of one slice only added a stream, a generator and a turn of the loop after it.
import { Readable } from "node:stream";

/** How much of the message the parser gets before the event loop may run other work. */
const PARSE_SLICE_BYTES = 64 * 1024;

/** The message as a stream of slices (views of its bytes, no copies), a turn of the event loop between them. */
export function inSlices(bytes: Uint8Array): Readable | Buffer {
  const view = (at: number) => Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(PARSE_SLICE_BYTES, bytes.byteLength - at));
  if (bytes.byteLength <= PARSE_SLICE_BYTES) return view(0);
  return Readable.from(
    (async function* () {
      for (let at = 0; at < bytes.byteLength; at += PARSE_SLICE_BYTES) {
        if (at > 0) await new Promise((resolve) => setImmediate(resolve));
        yield view(at);
      }
    })(),
    { objectMode: false },
  );
}
