// The Graphile Worker task list: one file per task, the task name the file name.
import type { Task } from "graphile-worker";
import type { Services } from "../../src/core/services.ts";
import { deliverWebhook } from "./deliver_webhook.ts";
import { expireReviewTask } from "./expire_review.ts";
import { notifyReviewersTask } from "./notify_reviewers.ts";
import { processInbound } from "./process_inbound.ts";
import { pruneEventLogTask } from "./prune_event_log.ts";
import { purgeExpiredContentTask } from "./purge_expired_content.ts";
import { reconcileSend } from "./reconcile_send.ts";
import { sendScheduledDraftTask } from "./send_scheduled_draft.ts";

export function taskList(svc: Services): Record<string, Task> {
  return {
    process_inbound: async (payload, helpers) => processInbound(svc, payload as { message_id: string }, helpers),
    reconcile_send: async (payload) => reconcileSend(svc, payload as { message_id: string }),
    deliver_webhook: async (payload) => deliverWebhook(svc, payload as { delivery_id: string }),
    prune_event_log: async () => pruneEventLogTask(svc),
    purge_expired_content: async () => purgeExpiredContentTask(svc),
    notify_reviewers: async (payload) => notifyReviewersTask(svc, payload as { review_id: string }),
    expire_review: async (payload) => expireReviewTask(svc, payload as { review_id: string }),
    send_scheduled_draft: async (payload) => sendScheduledDraftTask(svc, payload as { draft_id: string; at: string }),
  };
}
