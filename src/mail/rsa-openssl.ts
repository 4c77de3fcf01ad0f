// RSASSA-PKCS1-v1_5 with SHA-256 (DKIM's rsa-sha256) through the system's OpenSSL 3 libcrypto,
// called with bun:ffi on the calling thread. Why: Bun's own RSA (BoringSSL, behind both Web Crypto
// and node:crypto) took 1.0–1.2 ms of CPU for one RSA-2048 signature on the benchmark machine,
// OpenSSL 3 0.5 ms for the same key (docs/performance.md, "DKIM's RSA through OpenSSL"). The
// signature is deterministic, so it is byte for byte what Web Crypto gives
// (test/mail/rsa-openssl.test.ts). Where it cannot run (Deno, no libcrypto.so.3, a key OpenSSL
// does not read), rsaSha256Signer answers null and the caller signs with Web Crypto as before.

import { createHash } from "node:crypto";

/** Signs `data` (its SHA-256, then RSA) with one key; throws when OpenSSL refuses. */
export type RsaSha256Signer = (data: Uint8Array) => Uint8Array<ArrayBuffer>;

type Symbols = {
  d2i_AutoPrivateKey(a: null, pp: number, length: number): number | null;
  EVP_PKEY_CTX_new(pkey: number, engine: null): number | null;
  EVP_PKEY_CTX_free(ctx: number): void;
  EVP_PKEY_free(pkey: number): void;
  EVP_PKEY_sign_init(ctx: number): number;
  EVP_PKEY_CTX_set_rsa_padding(ctx: number, padding: number): number;
  EVP_PKEY_CTX_set_signature_md(ctx: number, md: number): number;
  EVP_sha256(): number;
  EVP_PKEY_get_size(pkey: number): number;
  EVP_PKEY_get_base_id(pkey: number): number;
  EVP_PKEY_sign(ctx: number, sig: number, siglen: number, tbs: number, tbslen: number): number;
};
type Ffi = { symbols: Symbols; ptr(view: Uint8Array | BigUint64Array): number };

const RSA_PKCS1_PADDING = 1;
const EVP_PKEY_RSA = 6;

let library: Promise<Ffi | null> | null = null;

/** libcrypto.so.3 opened once; null off Bun or without it (then nothing here is ever used). */
function openLibrary(): Promise<Ffi | null> {
  library ??= (async () => {
    if (typeof Bun === "undefined") return null;
    try {
      // A computed specifier: Deno never resolves bun:ffi, and never gets here (no Bun global).
      const specifier = "bun:ffi";
      const { dlopen, FFIType: T, ptr } = (await import(specifier)) as typeof import("bun:ffi");
      const { symbols } = dlopen("libcrypto.so.3", {
        d2i_AutoPrivateKey: { args: [T.ptr, T.ptr, T.i64], returns: T.ptr },
        EVP_PKEY_CTX_new: { args: [T.ptr, T.ptr], returns: T.ptr },
        EVP_PKEY_CTX_free: { args: [T.ptr], returns: T.void },
        EVP_PKEY_free: { args: [T.ptr], returns: T.void },
        EVP_PKEY_sign_init: { args: [T.ptr], returns: T.i32 },
        EVP_PKEY_CTX_set_rsa_padding: { args: [T.ptr, T.i32], returns: T.i32 },
        EVP_PKEY_CTX_set_signature_md: { args: [T.ptr, T.ptr], returns: T.i32 },
        EVP_sha256: { args: [], returns: T.ptr },
        EVP_PKEY_get_size: { args: [T.ptr], returns: T.i32 },
        EVP_PKEY_get_base_id: { args: [T.ptr], returns: T.i32 },
        EVP_PKEY_sign: { args: [T.ptr, T.ptr, T.ptr, T.ptr, T.u64], returns: T.i32 },
      });
      return { symbols: symbols as unknown as Symbols, ptr: (view) => ptr(view) as number };
    } catch {
      return null;
    }
  })();
  return library;
}

// OpenSSL's key and context for a signer, freed once the signer itself is unreachable (the caller
// keeps a bounded set of keys, and a send may still hold one the set has let go).
const handles = new FinalizationRegistry<() => void>((free) => free());

/**
 * A signer for the RSA private key `der` (PKCS#8), or null when OpenSSL is not available here or
 * does not take the key as RSA.
 */
export async function rsaSha256Signer(der: Uint8Array): Promise<RsaSha256Signer | null> {
  const ffi = await openLibrary();
  if (!ffi || der.length === 0) return null;
  const s = ffi.symbols;
  const bytes = new Uint8Array(der);
  // d2i_ takes a pointer to a pointer to the bytes (and moves it past what it read).
  const cursor = new BigUint64Array([BigInt(ffi.ptr(bytes))]);
  const pkey = s.d2i_AutoPrivateKey(null, ffi.ptr(cursor), bytes.length);
  if (!pkey) return null;
  if (s.EVP_PKEY_get_base_id(pkey) !== EVP_PKEY_RSA) {
    s.EVP_PKEY_free(pkey);
    return null;
  }
  const ctx = s.EVP_PKEY_CTX_new(pkey, null);
  // One context for every signature with this key: EVP_PKEY_sign may be called again and again
  // with the parameters set once here.
  if (
    !ctx ||
    s.EVP_PKEY_sign_init(ctx) !== 1 ||
    s.EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) !== 1 ||
    s.EVP_PKEY_CTX_set_signature_md(ctx, s.EVP_sha256()) !== 1
  ) {
    if (ctx) s.EVP_PKEY_CTX_free(ctx);
    s.EVP_PKEY_free(pkey);
    return null;
  }
  const size = s.EVP_PKEY_get_size(pkey);
  const sign: RsaSha256Signer = (data) => {
    const digest = createHash("sha256").update(data).digest();
    const signature = new Uint8Array(size);
    const length = new BigUint64Array([BigInt(size)]);
    if (s.EVP_PKEY_sign(ctx, ffi.ptr(signature), ffi.ptr(length), ffi.ptr(digest), digest.length) !== 1) {
      throw new Error("DKIM signing failed: OpenSSL refused to sign");
    }
    return signature.subarray(0, Number(length[0]));
  };
  handles.register(sign, () => {
    s.EVP_PKEY_CTX_free(ctx);
    s.EVP_PKEY_free(pkey);
  });
  return sign;
}
