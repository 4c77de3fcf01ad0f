// Screening: where the verdicts on an inbound message are decided, as the named steps of
// screen.ts (the process_inbound task runs it after the listener committed the message).
// - virus.ts: step 1, the virus verdict (clamd).
// - spam.ts: step 2. The spam verdict is decided in judgeSpam: the edge verdict (inputs.ts:
//   a trusted upstream's flag, DMARC p=reject, spamd or Rspamd) weighed with our classifier's score
//   (src/comprehension/spam/) and the account's corrections (feedback.ts).
// - injection.ts: step 3, the prompt-injection verdict on the body and each attachment's text,
//   scored by src/comprehension/injection/. Hidden text is found earlier, when the message is
//   stored (../inbound/store.ts sanitizes it): src/mail/sanitize/hidden-text.ts collects what a
//   reader would not see, and this step scores it with the visible text.
// - sender-risk.ts: whether the mail may not be from who it claims.
// - comprehend.ts: step 4, classification and extraction, unless an earlier verdict rules it out.
// - record.ts: step 5, the verdicts and the message.received event in one transaction.
// - feedback.ts: an account's corrections of verdicts, and what it learns from them.
// - models.ts: reads the scoring models once, as a worker starts.
// Other modules import this file only.

export type { FeedbackAxis, FeedbackVerdict } from "./feedback.ts";
export { AXIS_OF, accountCorrections, FEEDBACK_VERDICTS, feedbackOfMessage, giveFeedback, undoFeedback } from "./feedback.ts";
export { loadScreeningModels } from "./models.ts";
export { screenMessage } from "./screen.ts";
