// Virus scanning with ClamAV's clamd over its socket (INSTREAM). clamd decodes MIME itself, so the
// raw message is streamed as received.
import { exchange } from "./socket-address.ts";

export type VirusVerdict = { infected: boolean; signature: string | null };

const CHUNK = 64 * 1024;

export async function scanWithClamd(address: string, raw: Uint8Array, timeoutMs: number): Promise<VirusVerdict> {
  const parts: Uint8Array[] = [new TextEncoder().encode("zINSTREAM\0")];
  for (let offset = 0; offset < raw.length; offset += CHUNK) {
    const chunk = raw.subarray(offset, Math.min(offset + CHUNK, raw.length));
    const size = new Uint8Array(4);
    new DataView(size.buffer).setUint32(0, chunk.length);
    parts.push(size, chunk);
  }
  parts.push(new Uint8Array(4)); // a zero-length chunk ends the stream
  const reply = (await exchange(address, parts, timeoutMs, (r) => r.includes(0))).toString("utf8").replace(/\0.*$/s, "").trim();
  // "stream: OK" | "stream: Eicar-Signature FOUND" | "INSTREAM size limit exceeded. ERROR"
  if (/:\s*OK$/.test(reply)) return { infected: false, signature: null };
  const found = /:\s*(.+)\s+FOUND$/.exec(reply);
  if (found) return { infected: true, signature: found[1]! };
  throw new Error(`clamd: ${reply || "empty reply"}`);
}
