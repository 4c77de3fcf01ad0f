// Webhooks: what the service publishes to an account's own HTTP endpoint.
// - endpoint.ts: the account's webhook (URL, secret, event types), the message.received event
//   with its delivery row, delivery listings and redrive of dead letters.
// - lifecycle-events.ts: the outbound and review events (message.sent, draft.approved...),
//   appended to the event log in the caller's transaction and queued for the webhook.
// - delivery.ts: one delivery attempt and its retry schedule. A webhook is signed there, at
//   each attempt, with the primitives in src/webhook-signature.ts (x-service-signature) and
//   src/standard-webhooks.ts (webhook-signature), which the client's verifier shares.
// - target.ts: where a webhook may go (private and metadata addresses refused, rebinding-safe);
//   post.ts: the HTTP POST to the checked address.
// Other modules import this file only.
export { attemptWebhookDelivery } from "./delivery.ts";
export type { DeliverySummary } from "./endpoint.ts";
export {
  createMessageReceivedEvent,
  disableWebhook,
  listAttempts,
  listDeliveries,
  redriveDelivery,
  setWebhook,
  setWebhookEventTypes,
  showWebhook,
} from "./endpoint.ts";
export { draftHistory, messageHistory, recordLifecycleEvent } from "./lifecycle-events.ts";
export { MAX_WEBHOOK_URL_LENGTH } from "./target.ts";
