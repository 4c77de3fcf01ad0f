// One worker thread per process that signs with OpenSSL (rsa-openssl-worker.ts), started on the
// first key. Why a thread: on the event loop the signature (0.5 ms for RSA-2048) would hold every
// other request of the process for that long; handed over, the event loop pays about 0.03 ms
// (docs/performance.md, "DKIM's RSA through OpenSSL"). The thread (src/job-thread.ts) holds the
// process open only while it has work; one that dies fails what it held, and its keys with it:
// signers made before are refused (the caller's key cache drops a failed key and imports it again
// on the next send).
import { jobThread } from "../job-thread.ts";
import type { RsaJob, RsaReply } from "./rsa-openssl-worker.ts";

/** Signs `data` (RSASSA-PKCS1-v1_5, SHA-256) with one key on the signing thread. */
export type ThreadSigner = (data: Uint8Array) => Promise<Uint8Array>;

const thread = jobThread<RsaJob, RsaReply>(new URL("./rsa-openssl-worker.ts", import.meta.url), "DKIM signing thread");
let nextKey = 0;

// Tells the thread to let go of a key whose signer here was collected.
const dropped = new FinalizationRegistry<{ w: Worker; keyId: number }>(({ w, keyId }) => {
  if (thread.isCurrent(w)) w.postMessage({ id: 0, keyId, drop: true } satisfies RsaJob);
});

/**
 * A signer for the RSA key `der` (PKCS#8) on the signing thread, or null when OpenSSL cannot be
 * used there for it (no libcrypto.so.3, not an RSA key): the caller then signs with Web Crypto.
 */
export async function rsaSha256ThreadSigner(der: Uint8Array): Promise<ThreadSigner | null> {
  // bun:ffi is Bun's: elsewhere no thread is started for a key it could not take.
  if (typeof Bun === "undefined") return null;
  let w: Worker;
  try {
    w = thread.current();
  } catch {
    return null;
  }
  const keyId = ++nextKey;
  const loaded = await thread.ask({ keyId, der }, w);
  if (!("ok" in loaded) || !loaded.ok) return null;
  const sign: ThreadSigner = async (data) => {
    if (!thread.isCurrent(w)) throw new Error("DKIM signing thread was restarted; the key is imported again");
    const reply = await thread.ask({ keyId, data }, w);
    if ("signature" in reply) return reply.signature;
    throw new Error(`DKIM signing failed: ${"error" in reply ? reply.error : "no signature"}`);
  };
  dropped.register(sign, { w, keyId });
  return sign;
}
