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
