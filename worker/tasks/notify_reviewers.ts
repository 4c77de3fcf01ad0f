// Emails the account's reviewers about a draft that waits for approval (src/core/outbound/approvals.ts).
import { notifyReviewers } from "../../src/core/outbound/index.ts";
import type { Services } from "../../src/core/services.ts";

export async function notifyReviewersTask(svc: Services, payload: { review_id: string }): Promise<void> {
  await notifyReviewers(svc, payload.review_id);
}
