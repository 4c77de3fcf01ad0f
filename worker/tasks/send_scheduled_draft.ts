// send_scheduled_draft: sends a draft at the time it was scheduled for (src/core/outbound/scheduled-drafts.ts).
// Its job key is per draft, so a reschedule replaces it; a run that finds the draft rescheduled,
// unscheduled, sent or deleted does nothing, and a second run finds the draft already claimed.

import { sendScheduledDraft } from "../../src/core/outbound/index.ts";
import type { Services } from "../../src/core/services.ts";
import { errorText } from "../../src/request/error-answers.ts";

export async function sendScheduledDraftTask(svc: Services, payload: { draft_id: string; at: string }): Promise<void> {
  await sendScheduledDraft(svc, payload.draft_id, payload.at, errorText);
}
