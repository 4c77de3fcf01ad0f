// reconcile_send: resolves an outbound message whose delivery outcome was not recorded (see
// src/core/outbound/reconcile.ts). A second run is harmless: each step is conditional on the delivery status.

import { reconcileDelivery } from "../../src/core/outbound/index.ts";
import type { Services } from "../../src/core/services.ts";

export async function reconcileSend(svc: Services, payload: { message_id: string }): Promise<void> {
  await reconcileDelivery(svc, payload.message_id);
}
