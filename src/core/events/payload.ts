// The message.received event as stored in the event log and posted to webhooks: one shape,
// in its own file so the event log (events.ts) and webhooks (webhooks.ts) need not import each other.

export type MessageReceivedPayload = {
  event_id: string;
  type: "message.received";
  message_id: string;
  mailbox_id: string;
  thread_id: string;
  from: string;
  subject: string;
  body: string;
  truncated: boolean;
  sanitization: Record<string, unknown>;
  comprehension_status: string;
  classification: Record<string, unknown> | null;
  extraction: Record<string, unknown> | null;
  extraction_error: Record<string, unknown> | null;
  confidence: number;
};

/** What became of an outbound message (src/core/outbound/record-outcome.ts's recordOutcome, src/core/inbound/bounces.ts). */
export const OUTBOUND_EVENT_TYPES = [
  "message.sent",
  "message.delivered",
  "message.send_failed",
  "message.bounced",
  "message.complained",
] as const;
/** A draft's review (src/core/outbound/drafts.ts's transition functions). */
export const DRAFT_EVENT_TYPES = [
  "draft.pending_approval",
  "draft.approved",
  "draft.rejected",
  "draft.scheduled",
  "draft.unscheduled",
] as const;
export const LIFECYCLE_EVENT_TYPES = [...OUTBOUND_EVENT_TYPES, ...DRAFT_EVENT_TYPES] as const;
/** Every type the event log carries; webhooks receive message.received and the ones chosen. */
export const EVENT_TYPES = ["message.received", ...LIFECYCLE_EVENT_TYPES] as const;

export type LifecycleEventType = (typeof LIFECYCLE_EVENT_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * An outbound or review event: one envelope for all of them, naming the outbound message, the
 * draft, or both; what is particular to the type is in `detail` (docs/events.md lists it).
 */
export type LifecycleEventPayload = {
  event_id: string;
  type: LifecycleEventType;
  /** When it happened (ISO 8601). */
  created_at: string;
  mailbox_id: string;
  thread_id: string;
  message_id: string | null;
  draft_id: string | null;
  to: string | null;
  subject: string;
  detail: Record<string, unknown>;
};

export type EventPayload = MessageReceivedPayload | LifecycleEventPayload;

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
