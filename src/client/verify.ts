// The webhook verifier on its own (`@agent-mailbox/client/verify`, and `agent-mailbox/verify` in
// this repository): a receiver checks each delivery over its exact raw body, with the service's
// x-service-signature or the Standard Webhooks headers, then treats event_id as an idempotency key.

export { verifyStandardWebhook } from "../standard-webhooks.ts";
export {
  DEFAULT_TOLERANCE_MS,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  type VerifyResult,
  verifyWebhookSignature,
} from "../webhook-signature.ts";
export { verifyWebhook } from "./webhooks.ts";
