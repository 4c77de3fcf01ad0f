// Rejects a draft whose review window ran out, recorded as expired (src/core/outbound/approvals.ts).
import { expireReview } from "../../src/core/outbound/index.ts";
import type { Services } from "../../src/core/services.ts";

export async function expireReviewTask(svc: Services, payload: { review_id: string }): Promise<void> {
  await expireReview(svc, payload.review_id);
}
