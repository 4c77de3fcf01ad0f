// Small cryptographic helpers on Web Crypto, so the same code runs on Bun and Deno; node:crypto
// and node:buffer (which both also provide) where an await would cost a thread hop or a loop
// over bytes would cost more than one native call.
import { Buffer } from "node:buffer";
import { createHash, createHmac } from "node:crypto";

const encoder = new TextEncoder();

export function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}

/** Standard base64 with padding, in one native call (a char-by-char string and btoa cost ~7 us a DKIM signature). */
export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

export function base64url(bytes: Uint8Array): string {
  return base64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function hex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

export async function sha256(data: string | Uint8Array): Promise<Uint8Array> {
  const input = typeof data === "string" ? encoder.encode(data) : data;
  return new Uint8Array(await crypto.subtle.digest("SHA-256", input as Uint8Array<ArrayBuffer>));
}

export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return hex(await sha256(data));
}

/**
 * SHA-256 computed on the calling thread. Web Crypto's digest runs on a thread pool and resolves on
 * a later turn of the event loop: for a message-sized input the hashing is far shorter than that
 * hand-off on a busy machine, and this is the path that holds an SMTP client waiting for its 250
 * (docs/performance.md).
 */
export function sha256HexNow(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message))));
}

/** hmacSha256Hex on the calling thread (node:crypto): no key import and no thread hop per call. */
export function hmacSha256HexNow(secret: string, message: string): string {
  return createHmac("sha256", secret).update(message).digest("hex");
}

/** Compares two strings without an early exit, so timing does not reveal how much matched. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  let difference = left.length ^ right.length;
  const length = Math.max(left.length, right.length);
  for (let i = 0; i < length; i++) difference |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return difference === 0;
}
