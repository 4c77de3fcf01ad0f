// Inbound: accepting mail that arrives, before it is screened.
// - recipients.ts: the one recipient switch (our mailbox, an unsubscribe mailto, unknown, not ours)
//   for the SMTP listener and the local transport alike.
// - store.ts: the raw message, a row per mailbox and the screening job, in one transaction;
//   dedupe.ts: a second copy of the same message to the same mailbox is stored once;
//   threading.ts: which thread a message joins; staged-content.ts and bytea-base64.ts: how its bytes
//   reach the statement (large ones in slices before it).
// - bounces.ts: delivery reports (bounces, complaints) about mail we sent, which suppress the
//   recipient; screening calls it.
// Screening, classification and the message.received event follow in ../screening/.
// Other modules import this file only.
export { applyDeliveryReports } from "./bounces.ts";
export { receiveForLookedUp, receiveForRecipients } from "./recipients.ts";
export type { RecipientLookup } from "./store.ts";
export { lookupRecipient } from "./store.ts";
