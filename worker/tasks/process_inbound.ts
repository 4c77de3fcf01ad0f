// process_inbound: everything that happens to an inbound message after the listener committed it
// and answered 250 (see src/core/screening/screen.ts). Idempotent, so a retry after a crash is harmless.
import type { JobHelpers } from "graphile-worker";
import { screenMessage } from "../../src/core/screening/index.ts";
import type { Services } from "../../src/core/services.ts";

export async function processInbound(svc: Services, payload: { message_id: string }, helpers?: JobHelpers): Promise<void> {
  // The first webhook attempt is made here, right after the verdict commits (see screenMessage).
  await screenMessage(svc, payload.message_id, helpers?.job.attempts ?? 1, { deliverWebhook: true });
}
