// deliver_webhook: one attempt at a webhook delivery (see src/core/webhooks/delivery.ts).
import type { Services } from "../../src/core/services.ts";
import { attemptWebhookDelivery } from "../../src/core/webhooks/index.ts";

export async function deliverWebhook(svc: Services, payload: { delivery_id: string }): Promise<void> {
  await attemptWebhookDelivery(svc, payload.delivery_id);
}
