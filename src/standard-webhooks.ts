// Standard Webhooks (standardwebhooks.com) headers, sent on every delivery beside the contract's (docs/webhooks.md)
// x-service-signature / x-service-timestamp: webhook-id (the event_id, the same on every retry
// and redrive), webhook-timestamp (epoch seconds) and webhook-signature
// (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`).
// Key bytes: a secret of the form `whsec_<standard base64>` signs with the decoded bytes (what
// the Standard Webhooks libraries do with such a secret); any other secret signs with its UTF-8
// bytes (such a receiver passes those bytes as a raw key). x-service-signature always uses the
// whole secret string's UTF-8 bytes, `whsec_` included, as docs/webhooks.md says.
import { base64, constantTimeEqual } from "./secrets.ts";
// The same result shape as the x-service-signature check, so a receiver handles both alike.
import type { VerifyResult } from "./webhook-signature.ts";

export const WEBHOOK_ID_HEADER = "webhook-id";
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";
const TOLERANCE_SECONDS = 5 * 60;
const encoder = new TextEncoder();
const STANDARD_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/** The HMAC key bytes a secret stands for under Standard Webhooks (see the file comment). */
export function standardWebhookKey(secret: string): Uint8Array {
  const match = STANDARD_SECRET.exec(secret);
  if (match && match[1]!.length > 0) return Uint8Array.from(atob(match[1]!), (c) => c.charCodeAt(0));
  return encoder.encode(secret);
}

export async function signStandardWebhook(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    standardWebhookKey(secret) as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestampSeconds}.${body}`)));
  return `v1,${base64(mac)}`;
}

export async function standardWebhookHeaders(
  secret: string,
  id: string,
  timestampMs: number,
  body: string,
): Promise<Record<string, string>> {
  const seconds = Math.floor(timestampMs / 1000);
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(seconds),
    [WEBHOOK_SIGNATURE_HEADER]: await signStandardWebhook(secret, id, seconds, body),
  };
}

/**
 * Checks the Standard Webhooks headers of a received request over its exact raw body. Any one
 * of the space-separated `v1,` signatures matching is enough (the spec allows several during a
 * secret rotation).
 */
export async function verifyStandardWebhook(
  rawBody: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string,
  options: { toleranceSeconds?: number; now?: number } = {},
): Promise<VerifyResult> {
  const get = (name: string) => {
    if (headers instanceof Headers) return headers.get(name);
    const value = headers[name];
    return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
  };
  const id = get(WEBHOOK_ID_HEADER);
  const timestampText = get(WEBHOOK_TIMESTAMP_HEADER);
  const signatures = get(WEBHOOK_SIGNATURE_HEADER);
  if (!id || !timestampText || !signatures) return { ok: false, reason: "missing headers" };
  if (!/^\d{1,12}$/.test(timestampText)) return { ok: false, reason: "bad timestamp" };
  const timestamp = Number(timestampText);
  if (Math.abs(Math.floor((options.now ?? Date.now()) / 1000) - timestamp) > (options.toleranceSeconds ?? TOLERANCE_SECONDS)) {
    return { ok: false, reason: "timestamp too old" };
  }
  const expected = await signStandardWebhook(secret, id, timestamp, rawBody);
  let matched = false;
  for (const candidate of signatures.split(" ")) if (constantTimeEqual(candidate, expected)) matched = true;
  return matched ? { ok: true } : { ok: false, reason: "bad signature" };
}
