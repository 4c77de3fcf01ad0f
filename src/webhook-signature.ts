// Webhook signatures: hex HMAC-SHA256 of `<timestamp>.<raw_body>` keyed with the signing secret,
// sent as x-service-signature with x-service-timestamp (epoch milliseconds). Receivers import
// verifyWebhookSignature (package export "./verify") to check a request.
import { constantTimeEqual, hmacSha256Hex } from "./secrets.ts";

export const SIGNATURE_HEADER = "x-service-signature";
export const TIMESTAMP_HEADER = "x-service-timestamp";
export const DEFAULT_TOLERANCE_MS = 5 * 60 * 1000;

export async function signWebhook(secret: string, timestamp: number, rawBody: string): Promise<string> {
  return hmacSha256Hex(secret, `${timestamp}.${rawBody}`);
}

export type VerifyResult =
  | { ok: true }
  | { ok: false; reason: "missing headers" | "bad timestamp" | "timestamp too old" | "bad signature" };

/**
 * Checks a received webhook: the exact raw body as received (not re-serialized JSON), the
 * request headers (a Headers object or a plain record), and the secret. Reject the request
 * unless `ok`; then treat `event_id` as an idempotency key, since delivery is at least once.
 */
export async function verifyWebhookSignature(
  rawBody: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string,
  options: { toleranceMs?: number; now?: number } = {},
): Promise<VerifyResult> {
  const get = (name: string) => {
    if (headers instanceof Headers) return headers.get(name);
    const value = headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
  };
  const signature = get(SIGNATURE_HEADER);
  const timestampText = get(TIMESTAMP_HEADER);
  if (!signature || !timestampText) return { ok: false, reason: "missing headers" };
  if (!/^\d{1,16}$/.test(timestampText)) return { ok: false, reason: "bad timestamp" };
  const timestamp = Number(timestampText);
  const age = (options.now ?? Date.now()) - timestamp;
  if (Math.abs(age) > (options.toleranceMs ?? DEFAULT_TOLERANCE_MS)) return { ok: false, reason: "timestamp too old" };
  const expected = await signWebhook(secret, timestamp, rawBody);
  return constantTimeEqual(expected, signature.trim().toLowerCase()) ? { ok: true } : { ok: false, reason: "bad signature" };
}
