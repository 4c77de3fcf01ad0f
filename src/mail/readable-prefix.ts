// When the MIME parser gives up on a message (more parts than it allows, or a part whose header is
// too large), the parts before that point are still mail someone may need: this cuts the raw
// message down to them, so the parser can read those and the rest is known to be unread.
// mailsplit is the splitter mailparser itself runs; re-joining its chunks gives back the bytes.
import type { Transform } from "node:stream";
import { Splitter } from "@zone-eu/mailsplit";

/**
 * The most MIME nodes of a prefix the parser reads: mailsplit's default maxChildNodes is 1000, and
 * mailparser 3.14 refuses a prefix of 1000 of our nodes but reads 999 (it counts one more).
 */
export const MAX_MIME_PARTS = 999;

export type ReadablePrefix = { bytes: Buffer; parts: number; stoppedBy: "part_limit" | "header_limit" | "end" };

/**
 * The raw message up to its first `maxParts` MIME nodes (the top-level one counts). Open
 * multiparts are left unclosed: parsers read an unterminated multipart to its end.
 */
export function readablePrefix(raw: Uint8Array, maxParts = MAX_MIME_PARTS): Promise<ReadablePrefix> {
  return new Promise((resolve) => {
    // The splitter's own limit stays above ours: we stop it ourselves at our count.
    // Typed as the Transform it is: mailsplit's declarations list its 'data' event only.
    const splitter = new Splitter({ maxChildNodes: maxParts + 1 }) as unknown as Transform;
    const chunks: Buffer[] = [];
    let parts = 0;
    let done = false;
    const finish = (stoppedBy: ReadablePrefix["stoppedBy"]) => {
      if (done) return;
      done = true;
      splitter.destroy();
      resolve({ bytes: Buffer.concat(chunks), parts, stoppedBy });
    };
    splitter.on("data", (chunk: { type: string; value?: Buffer; getHeaders?: () => Buffer }) => {
      if (done) return;
      if (chunk.type === "node") {
        if (parts === maxParts) return finish("part_limit");
        parts++;
        chunks.push(chunk.getHeaders!());
      } else if (chunk.value) {
        chunks.push(chunk.value);
      }
    });
    // The only errors a splitter raises on bytes are its size limits; the header one is the one
    // we can meet here (ours trips before its part limit).
    splitter.on("error", () => finish("header_limit"));
    splitter.on("end", () => finish("end"));
    splitter.end(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  });
}
