// DKIM signing (RFC 6376: rsa-sha256, relaxed/relaxed), rather than nodemailer's signer, which
// parses the PEM key anew for every message and streams the body through several Transforms (its
// cost per message: docs/performance.md). Here the key is imported once per PEM, the body hash is
// one SHA-256 over the canonical body, and the RSA operation runs in OpenSSL on a thread of its own
// where Bun can reach it (rsa-openssl.ts, rsa-openssl-thread.ts: half the CPU of Bun's own RSA),
// in Web Crypto otherwise. test/mail/dkim-sign.test.ts checks the output with mailauth's verifier.

import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { base64 } from "../secrets.ts";
import { rsaSha256ThreadSigner } from "./rsa-openssl-thread.ts";

export type DkimKey = { domainName: string; keySelector: string; privateKey: string };

const ALGORITHM = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

/** RSASSA-PKCS1-v1_5 over SHA-256 of `data` with one imported key. */
type KeySigner = (data: Uint8Array<ArrayBuffer>) => Promise<Uint8Array>;

// Imported keys by PEM text. A rotated key is a new PEM, so it is imported anew; the bound keeps
// a service with many custom domains from holding every key it ever used.
const importedKeys = new Map<string, Promise<KeySigner>>();
const MAX_IMPORTED_KEYS = 256;

async function signerFor(pem: string): Promise<KeySigner> {
  const der = pemToDer(pem);
  // A thread that cannot start or load the key leaves the key to Web Crypto.
  const native = await rsaSha256ThreadSigner(der).catch(() => null);
  if (native) return native;
  const key = await crypto.subtle.importKey("pkcs8", der, ALGORITHM, false, ["sign"]);
  return async (data) => new Uint8Array(await crypto.subtle.sign(ALGORITHM, key, data));
}

function importedKey(pem: string): Promise<KeySigner> {
  let key = importedKeys.get(pem);
  if (!key) {
    if (importedKeys.size >= MAX_IMPORTED_KEYS) importedKeys.delete(importedKeys.keys().next().value!);
    key = Promise.resolve()
      .then(() => signerFor(pem))
      .catch((error) => {
        throw new Error(`DKIM signing failed: check the private key (${String(error)})`);
      });
    // A key that does not import is not remembered: the error reaches this send and the next.
    key.catch(() => importedKeys.delete(pem));
    importedKeys.set(pem, key);
  }
  return key;
}

function pemToDer(pem: string): Uint8Array<ArrayBuffer> {
  const match = /-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\s]+)-----END PRIVATE KEY-----/.exec(pem);
  if (!match) throw new Error("PKCS#8 PEM expected");
  return Uint8Array.from(atob(match[1]!.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
}

/**
 * Prepends a DKIM-Signature to `message` (CRLF line ends, header and body separated by an empty
 * line) covering those of `headerNames` (colon-separated, any case) that the message has.
 */
export async function dkimSignMessage(message: Uint8Array, key: DkimKey, headerNames: string): Promise<Uint8Array> {
  const text = latin1String(message);
  const split = text.indexOf("\r\n\r\n");
  const headerBlock = split < 0 ? text : text.slice(0, split + 2);
  const body = split < 0 ? "" : text.slice(split + 4);

  const fields = parseHeaderFields(headerBlock);
  const signed: string[] = [];
  const used = new Map<string, number>();
  for (const name of headerNames.split(":")) {
    const lower = name.trim().toLowerCase();
    // RFC 6376 §5.4.2: repeated names are signed from the bottom field up.
    const candidates = fields.filter((f) => f.lowerName === lower);
    const taken = used.get(lower) ?? 0;
    const field = candidates[candidates.length - 1 - taken];
    if (!field) continue;
    used.set(lower, taken + 1);
    signed.push(field.raw);
  }
  const names = signed.map((raw) => raw.slice(0, raw.indexOf(":")).trim().toLowerCase());

  const bodyHash = sha256Base64(canonicalBody(body));
  const unsignedHeader =
    `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${key.domainName};\r\n` +
    ` q=dns/txt; s=${key.keySelector}; bh=${bodyHash};\r\n` +
    ` h=${names.join(":")};\r\n b=`;
  const data = signed.map((raw) => `${canonicalHeader(raw)}\r\n`).join("") + canonicalHeader(unsignedHeader);
  const signer = importedKey(key.privateKey);
  const signature = await (await signer)(latin1Bytes(data)).catch((error) => {
    // A key whose signing thread died is imported again by the next send.
    if (importedKeys.get(key.privateKey) === signer) importedKeys.delete(key.privateKey);
    throw error;
  });
  const header = `${unsignedHeader}${foldBase64(base64(signature))}\r\n`;

  const out = new Uint8Array(header.length + message.length);
  out.set(latin1Bytes(header), 0);
  out.set(message, header.length);
  return out;
}

type Field = { lowerName: string; raw: string };

/** Header fields with their continuation lines, each without its final CRLF. */
function parseHeaderFields(block: string): Field[] {
  const fields: Field[] = [];
  for (const line of block.split("\r\n")) {
    if (line === "") continue;
    if ((line[0] === " " || line[0] === "\t") && fields.length > 0) {
      fields[fields.length - 1]!.raw += `\r\n${line}`;
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    fields.push({ lowerName: line.slice(0, colon).trim().toLowerCase(), raw: line });
  }
  return fields;
}

/** RFC 6376 §3.4.2: lower-case name, unfolded, runs of WSP as one space, none around the colon or at the end. */
export function canonicalHeader(raw: string): string {
  const colon = raw.indexOf(":");
  const name = raw.slice(0, colon).trim().toLowerCase();
  const value = raw
    .slice(colon + 1)
    .replace(/\r\n/g, "")
    .replace(/[ \t]+/g, " ")
    .trim();
  return `${name}:${value}`;
}

/** RFC 6376 §3.4.4: WSP runs as one space, none at line ends, no empty lines at the end, one final CRLF. */
export function canonicalBody(body: string): string {
  const lines = body.split("\r\n").map((line) => line.replace(/[ \t]+/g, " ").replace(/ $/, ""));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.length === 0 ? "" : `${lines.join("\r\n")}\r\n`;
}

// On the calling thread (node:crypto, which Deno has too): Web Crypto's digest hops to a thread
// pool and back, which costs more than hashing a message body (see sha256HexNow in secrets.ts).
function sha256Base64(text: string): string {
  return createHash("sha256").update(text, "latin1").digest("base64");
}

/**
 * One char per byte, in one native call (TextDecoder's "latin1" is windows-1252 and would remap
 * 0x80–0x9f; Buffer's "latin1" maps every byte to the char of the same code).
 */
function latin1String(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

/** The inverse of latin1String: each char back to its byte. */
function latin1Bytes(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** b= folded into lines of 76 characters at most; FWS inside b= is ignored by verifiers. */
function foldBase64(value: string): string {
  const first = 73; // after " b=" on the last tag line
  const parts = [value.slice(0, first)];
  for (let i = first; i < value.length; i += 75) parts.push(value.slice(i, i + 75));
  return parts.join("\r\n ");
}
