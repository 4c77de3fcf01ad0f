// Outbound: everything that sends mail, from the request to the recorded outcome.
// - send.ts: POST /send, its checks in the documented order. /send is made idempotent in
//   idempotency.ts: one row per (account, mailbox, client_id) claimed before delivery, holding
//   the payload's hash and the stored outcome a retry gets back.
// - drafts.ts, draft-attachments.ts, scheduled-drafts.ts: drafts and their state machine;
//   draft-rows.ts: the row as code reads it; draft-claim.ts: a draft locked and claimed for sending.
// - approvals.ts, reviews.ts, review-email.ts: drafts held for a human, and the reviewers' email.
// - outgoing.ts: a request resolved to mailbox, recipient, subject and thread.
// - policy.ts (send lists, then suppressions), sendlists.ts, suppressions.ts, loop-guard.ts
//   (replies to automatic mail held), quota.ts (the monthly quota).
// - dispatch.ts: compose, sign, record (outbound-record.ts), hand to the transport, and return
//   what the send ended in (outcome.ts: a closed set of kinds, worded at the edges by
//   src/request/send-answers.ts). record-outcome.ts records that outcome for the message, the
//   client_id tied to it and its draft, in one transaction, for every path that sends;
//   reconcile.ts: sends whose outcome was never recorded; outbox.ts: the local transport's outbox.
// - forward.ts, rsvp.ts: forwarding and calendar replies, through send.
// - unsubscribe.ts: the one-click unsubscribe token every outbound message carries.
// Other modules import this file only.

export type { LinkState, ReviewSubject } from "./approvals.ts";
export { answerLink, decisionOf, expireReview, linkState, notifyReviewers } from "./approvals.ts";
export {
  addDraftAttachment,
  addDraftAttachmentFromMessage,
  attachmentErrors,
  listDraftAttachments,
  MCP_ATTACHMENT_MAX_BYTES,
  removeDraftAttachment,
} from "./draft-attachments.ts";
export type { Decider } from "./drafts.ts";
export {
  approveDraft,
  createDraft,
  deleteDraft,
  getDraft,
  listDrafts,
  listPendingDrafts,
  rejectDraft,
  sendDraft,
  updateDraft,
} from "./drafts.ts";
export { forwardMessage } from "./forward.ts";
export { listOutbox, showOutboxMessage } from "./outbox.ts";
export type { OutcomeKind, SendOutcome } from "./outcome.ts";
export { reconcileDelivery } from "./reconcile.ts";
export { reasonText, reviewFacts, utc } from "./review-email.ts";
export { rsvpToMessage } from "./rsvp.ts";
export type { ScheduledRow } from "./scheduled-drafts.ts";
export { isoOf, listScheduled, MAX_SCHEDULE_DAYS, scheduleDraft, sendScheduledDraft, unscheduleDraft } from "./scheduled-drafts.ts";
export { sendMessage } from "./send.ts";
export type { SendListEntry } from "./sendlists.ts";
export { addSendListEntry, listSendListEntries, removeSendListEntry } from "./sendlists.ts";
export type { SuppressionReason } from "./suppressions.ts";
export { addSuppression, listSuppressions, removeSuppression } from "./suppressions.ts";
export { MAILTO_LOCAL_PREFIX, unsubscribeWithToken } from "./unsubscribe.ts";
