// One worker thread per process that signs with OpenSSL (rsa-openssl-worker.ts), started on the
// first key. Why a thread: on the event loop the signature (0.5 ms for RSA-2048) would hold every
// other request of the process for that long; handed over, the event loop pays about 0.03 ms
// (docs/performance.md, "DKIM's RSA through OpenSSL"). Same pattern as the argon2 worker
// (src/core/accounts/passwords.ts): it holds the process open only while it has work.
import type { RsaJob, RsaReply } from "./rsa-openssl-worker.ts";

/** Signs `data` (RSASSA-PKCS1-v1_5, SHA-256) with one key on the signing thread. */
export type ThreadSigner = (data: Uint8Array) => Promise<Uint8Array>;

type Waiting = { resolve(reply: RsaReply): void; reject(error: Error): void };
// ref/unref exist on Bun's Worker (the only runtime that gets here: rsa-openssl.ts needs bun:ffi).
type Holdable = { ref?(): void; unref?(): void };
let worker: Worker | null = null;
const waiting = new Map<number, Waiting>();
let nextJob = 0;
let nextKey = 0;

function signingWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(new URL("./rsa-openssl-worker.ts", import.meta.url).href, { type: "module" });
  started.onmessage = ({ data }: MessageEvent<RsaReply>) => {
    const job = waiting.get(data.id);
    if (!job) return;
    waiting.delete(data.id);
    job.resolve(data);
    if (waiting.size === 0) (started as unknown as Holdable).unref?.();
  };
  started.onerror = (event: ErrorEvent) => {
    event.preventDefault?.();
    // A dead worker fails what it held, and its keys with it: signers made before are refused
    // (the caller's key cache drops a failed key and imports it again on the next send).
    if (worker === started) worker = null;
    started.terminate();
    for (const job of waiting.values()) job.reject(new Error(`DKIM signing thread failed: ${event.message}`));
    waiting.clear();
  };
  worker = started;
  return started;
}

function ask(w: Worker, job: { keyId: number; der: Uint8Array } | { keyId: number; data: Uint8Array }): Promise<RsaReply> {
  (w as unknown as Holdable).ref?.();
  const id = ++nextJob;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ ...job, id } as RsaJob);
  });
}

// Tells the thread to let go of a key whose signer here was collected.
const dropped = new FinalizationRegistry<{ w: Worker; keyId: number }>(({ w, keyId }) => {
  if (worker === w) w.postMessage({ id: 0, keyId, drop: true } satisfies RsaJob);
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
    w = signingWorker();
  } catch {
    return null;
  }
  const keyId = ++nextKey;
  const loaded = await ask(w, { keyId, der });
  if (!("ok" in loaded) || !loaded.ok) return null;
  const sign: ThreadSigner = async (data) => {
    if (worker !== w) throw new Error("DKIM signing thread was restarted; the key is imported again");
    const reply = await ask(w, { keyId, data });
    if ("signature" in reply) return reply.signature;
    throw new Error(`DKIM signing failed: ${"error" in reply ? reply.error : "no signature"}`);
  };
  dropped.register(sign, { w, keyId });
  return sign;
}
