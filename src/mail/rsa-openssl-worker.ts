// DKIM's RSA signatures through OpenSSL (rsa-openssl.ts) on a thread of their own, so that the
// 0.5 ms of one RSA-2048 signature is not spent on the event loop. See rsa-openssl-thread.ts.
import { type RsaSha256Signer, rsaSha256Signer } from "./rsa-openssl.ts";

export type RsaJob =
  | { id: number; keyId: number; der: Uint8Array }
  | { id: number; keyId: number; data: Uint8Array }
  | { id: number; keyId: number; drop: true };
export type RsaReply = { id: number; ok: boolean } | { id: number; signature: Uint8Array } | { id: number; error: string };

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<RsaJob>) => void) | null;
  postMessage(reply: RsaReply): void;
};

const signers = new Map<number, RsaSha256Signer>();

scope.onmessage = async ({ data: job }) => {
  try {
    if ("der" in job) {
      const signer = await rsaSha256Signer(job.der);
      if (signer) signers.set(job.keyId, signer);
      scope.postMessage({ id: job.id, ok: signer !== null });
    } else if ("drop" in job) {
      // The key's OpenSSL handles are freed once its signer is collected (rsa-openssl.ts).
      signers.delete(job.keyId);
    } else {
      const signer = signers.get(job.keyId);
      if (!signer) throw new Error("no such key on the signing thread");
      scope.postMessage({ id: job.id, signature: signer(job.data) });
    }
  } catch (error) {
    scope.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) });
  }
};
