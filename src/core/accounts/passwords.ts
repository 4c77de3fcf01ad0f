// Dashboard password hashes: argon2id (hash-wasm, WebAssembly, so the same on Bun and Deno) with
// the OWASP minimum parameters (19 MiB, 2 passes, 1 lane), derived in a Web Worker so the main
// thread keeps serving. Hashes from before are PBKDF2-SHA256; they still verify, and say they need
// an upgrade, which the sign-in does on success.

import { jobThread } from "../../job-thread.ts";
import { base64, base64url, constantTimeEqual, randomBytes } from "../../secrets.ts";
import type { Argon2Job, Argon2Reply } from "./argon2-worker.ts";

const encoder = new TextEncoder();

export const ARGON2 = { memoryKiB: 19_456, iterations: 2, parallelism: 1, hashLength: 32 } as const;
type Argon2Params = { memoryKiB: number; iterations: number; parallelism: number };

// What a stored hash may ask for: a tampered row must not make one sign-in allocate gigabytes.
const LIMITS = { memoryKiB: 262_144, iterations: 16, parallelism: 8, pbkdf2Iterations: 10_000_000 };

export type PasswordCheck = { ok: boolean; needsRehash: boolean };

/** `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (the PHC string format, unpadded base64). */
export async function hashPassword(password: string, salt = randomBytes(16)): Promise<string> {
  const hash = await derive(password, salt, ARGON2);
  const params = `m=${ARGON2.memoryKiB},t=${ARGON2.iterations},p=${ARGON2.parallelism}`;
  return `$argon2id$v=19$${params}$${phcBase64(salt)}$${phcBase64(hash)}`;
}

/**
 * Checks a password against a stored hash (argon2id, or PBKDF2 from before). The comparison is
 * constant-time, and a stored value in no known format still costs one full argon2id derivation,
 * so timing says nothing about it. `needsRehash` is true for a correct password whose hash is
 * PBKDF2 or argon2id with weaker parameters than today's.
 */
export async function verifyPassword(password: string, stored: string): Promise<PasswordCheck> {
  const argon = parseArgon2(stored);
  if (argon) {
    const hash = await derive(password, argon.salt, argon.params, argon.hash.length);
    const ok = constantTimeEqual(base64url(hash), base64url(argon.hash));
    const weaker =
      argon.params.memoryKiB < ARGON2.memoryKiB || argon.params.iterations < ARGON2.iterations || argon.hash.length < ARGON2.hashLength;
    return { ok, needsRehash: ok && weaker };
  }
  const legacy = parsePbkdf2(stored);
  if (legacy) {
    const hash = await pbkdf2(password, legacy.salt, legacy.iterations);
    const ok = constantTimeEqual(base64url(hash), legacy.hashText);
    return { ok, needsRehash: ok };
  }
  await derive(password, randomBytes(16), ARGON2);
  return { ok: false, needsRehash: false };
}

// Derived on a thread of its own (job-thread.ts), so the event loop keeps serving.
const argon = jobThread<Argon2Job, Argon2Reply>(new URL("./argon2-worker.ts", import.meta.url), "argon2id worker");

async function derive(
  password: string,
  salt: Uint8Array,
  params: Argon2Params,
  hashLength: number = ARGON2.hashLength,
): Promise<Uint8Array> {
  const reply = await argon.ask({ password: encoder.encode(password), salt, ...params, hashLength });
  if ("hash" in reply) return reply.hash;
  throw new Error(`argon2id failed: ${reply.error}`);
}

function parseArgon2(stored: string): { params: Argon2Params; salt: Uint8Array; hash: Uint8Array } | null {
  const match = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]{11,64})\$([A-Za-z0-9+/]{22,128})$/.exec(stored);
  if (!match) return null;
  const params = { memoryKiB: Number(match[1]), iterations: Number(match[2]), parallelism: Number(match[3]) };
  const bounded =
    params.iterations >= 1 &&
    params.iterations <= LIMITS.iterations &&
    params.parallelism >= 1 &&
    params.parallelism <= LIMITS.parallelism &&
    params.memoryKiB >= 8 * params.parallelism &&
    params.memoryKiB <= LIMITS.memoryKiB;
  const salt = fromBase64(match[4]!);
  const hash = fromBase64(match[5]!);
  if (!bounded || !salt || !hash || salt.length < 8 || hash.length < 16) return null;
  return { params, salt, hash };
}

/** `pbkdf2$<iterations>$<salt>$<hash>`, base64url: what releases before argon2id stored. */
function parsePbkdf2(stored: string): { iterations: number; salt: Uint8Array; hashText: string } | null {
  const [scheme, iterationsText, saltText, hashText, ...rest] = stored.split("$");
  const iterations = Number(iterationsText);
  if (scheme !== "pbkdf2" || rest.length > 0 || !Number.isInteger(iterations) || iterations < 1 || iterations > LIMITS.pbkdf2Iterations)
    return null;
  const salt = saltText ? fromBase64(saltText.replace(/-/g, "+").replace(/_/g, "/")) : null;
  if (!salt || !hashText) return null;
  return { iterations, salt, hashText };
}

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as Uint8Array<ArrayBuffer>, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}

function phcBase64(bytes: Uint8Array): string {
  return base64(bytes).replace(/=+$/, "");
}

function fromBase64(text: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}
