// DKIM's RSA through OpenSSL (src/mail/rsa-openssl.ts, and on its thread: rsa-openssl-thread.ts) against Web Crypto, which it stands in for:
// RSASSA-PKCS1-v1_5 is deterministic, so the two must give the same bytes for every key and input.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { rsaSha256Signer } from "../../src/mail/rsa-openssl.ts";
import { rsaSha256ThreadSigner } from "../../src/mail/rsa-openssl-thread.ts";

const ALGORITHM = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

async function rsaKey(modulusLength: number) {
  const pair = await crypto.subtle.generateKey({ ...ALGORITHM, modulusLength, publicExponent: new Uint8Array([1, 0, 1]) }, true, [
    "sign",
    "verify",
  ]);
  return { pair, der: new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey)) };
}

describe("rsaSha256Signer", () => {
  test("gives Web Crypto's signature, byte for byte, for 2048- and 3072-bit keys and inputs of every length", async () => {
    for (const bits of [2048, 3072]) {
      const { pair, der } = await rsaKey(bits);
      const sign = await rsaSha256Signer(der);
      // Bun on Linux with libcrypto.so.3 (the machines this runs on); elsewhere the caller falls back.
      expect(sign).not.toBeNull();
      for (const length of [0, 1, 55, 64, 1000, 70_000]) {
        const data = new Uint8Array(randomBytes(length));
        const ours = sign!(data);
        expect(ours.length).toBe(bits / 8);
        expect(Buffer.from(ours).equals(Buffer.from(await crypto.subtle.sign(ALGORITHM, pair.privateKey, data)))).toBe(true);
        expect(await crypto.subtle.verify(ALGORITHM, pair.publicKey, ours, data)).toBe(true);
      }
    }
  });

  test("one signer signs many times (its OpenSSL context is reused)", async () => {
    const { pair, der } = await rsaKey(2048);
    const sign = (await rsaSha256Signer(der))!;
    for (let i = 0; i < 50; i++) {
      const data = new TextEncoder().encode(`message ${i}`);
      expect(await crypto.subtle.verify(ALGORITHM, pair.publicKey, sign(data), data)).toBe(true);
    }
  });

  test("a key that is not RSA, or not a key, gets no signer (the caller uses Web Crypto and its errors)", async () => {
    const ec = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"]);
    expect(await rsaSha256Signer(new Uint8Array(await crypto.subtle.exportKey("pkcs8", ec.privateKey)))).toBeNull();
    expect(await rsaSha256Signer(new Uint8Array(randomBytes(300)))).toBeNull();
    expect(await rsaSha256Signer(new Uint8Array(0))).toBeNull();
  });
});

describe("rsaSha256ThreadSigner", () => {
  test("signs on the signing thread, 40 at once over two keys, each as Web Crypto would", async () => {
    const keys = [await rsaKey(2048), await rsaKey(2048)];
    const signers = await Promise.all(keys.map((k) => rsaSha256ThreadSigner(k.der)));
    expect(signers.every((s) => s !== null)).toBe(true);
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const key = keys[i % 2]!;
        const data = new Uint8Array(randomBytes(100 + i));
        const ours = await signers[i % 2]!(data);
        expect(Buffer.from(ours).equals(Buffer.from(await crypto.subtle.sign(ALGORITHM, key.pair.privateKey, data)))).toBe(true);
      }),
    );
  });

  test("a key the thread cannot take gets no signer", async () => {
    expect(await rsaSha256ThreadSigner(new Uint8Array(randomBytes(300)))).toBeNull();
  });
});
