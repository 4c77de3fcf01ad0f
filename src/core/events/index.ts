// Events: the account's event log and everything that reads it.
// - log.ts: appending (in the transaction of the change an event reports), paging, pruning.
// - cursor.ts: the opaque, per-account cursors clients see instead of log positions.
// - payload.ts: the one shape of every event, as stored and as posted to webhooks.
// - consumers.ts: named consumers, leases and acknowledgements.
// - wait.ts: waiting for the next matching message (GET /messages/wait, wait_for_message).
// - hub.ts: one LISTEN connection per process that wakes every open stream and waiter.
// - feed.ts, stream-source.ts, consumer-source.ts: what a live stream sends next. SSE resumes
//   here: stream-source.ts starts after Last-Event-ID (then ?after), and feed.ts reads the log
//   strictly after the last cursor sent, so a reconnect never skips or repeats an event.
// - sse.ts: the Server-Sent Events framing; stream-slots.ts: open streams per key.
// Other modules import this file only.

export { ackEvents, claimEvents, getConsumer, MAX_LEASE_SECONDS, openConsumer } from "./consumers.ts";
export type { EventCursors } from "./cursor.ts";
export { eventCursors } from "./cursor.ts";
export type { CloseReason, Feed, FeedSource } from "./feed.ts";
export { startFeed } from "./feed.ts";
export { drainEventHub, eventHubFor } from "./hub.ts";
export type { EventScope } from "./log.ts";
export { appendEvent, EVENT_CHANNEL, listEvents, lockAccountEvents, MAX_EVENTS_PAGE, pruneEventLog, scopeFor } from "./log.ts";
export type { EventPayload, LifecycleEventPayload, LifecycleEventType, MessageReceivedPayload } from "./payload.ts";
export { EVENT_TYPES, isEventType, LIFECYCLE_EVENT_TYPES } from "./payload.ts";
export { eventStreamResponse, streamHeaders } from "./sse.ts";
export { streamSlotsFor } from "./stream-slots.ts";
export { streamSource } from "./stream-source.ts";
export { MAX_WAIT_SECONDS, waitForMessage } from "./wait.ts";
