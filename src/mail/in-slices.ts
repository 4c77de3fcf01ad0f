// A message handed to mailparser a slice at a time. Given one whole buffer, the parser splits lines
// and decodes base64 of a message of many megabytes in one synchronous stretch, and every request
// of the process (`/readyz` too) waits it out; fed slices with a turn of the event loop between
// them, it does the same work in short stretches. A message that fits in one slice is handed over
// whole: a stream of one slice only added a stream, a generator and a turn of the loop after it.
import { Readable } from "node:stream";
import { type Bytes, byteLengthOf, joined, viewsOf } from "../byte-blocks.ts";

/** How much of the message the parser gets before the event loop may run other work. */
const PARSE_SLICE_BYTES = 64 * 1024;

const asBuffer = (view: Uint8Array) => Buffer.from(view.buffer, view.byteOffset, view.byteLength);

/** The message as a stream of slices (views of its bytes, no copies), a turn of the event loop between them. */
export function inSlices(bytes: Bytes): Readable | Buffer {
  if (byteLengthOf(bytes) <= PARSE_SLICE_BYTES) return asBuffer(joined(bytes));
  return Readable.from(
    (async function* () {
      let first = true;
      for (const view of viewsOf(bytes, PARSE_SLICE_BYTES)) {
        if (!first) await new Promise((resolve) => setImmediate(resolve));
        first = false;
        yield asBuffer(view);
      }
    })(),
    { objectMode: false },
  );
}
