// Webhook verification for receivers: the Standard Webhooks headers when present, else the contract's (docs/webhooks.md)
// x-service-signature. Either way over the exact raw body; then treat event_id as idempotency key.
import { verifyStandardWebhook } from "../standard-webhooks.ts";
import { verifyWebhookSignature } from "../webhook-signature.ts";

export async function verifyWebhook(rawBody: string, headers: Headers | Record<string, string | string[] | undefined>, secret: string) {
  const has = (name: string) => (headers instanceof Headers ? headers.has(name) : headers[name] !== undefined);
  return has("webhook-signature") ? verifyStandardWebhook(rawBody, headers, secret) : verifyWebhookSignature(rawBody, headers, secret);
}
