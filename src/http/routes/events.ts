// GET /api/v1/events (polling the event log) and GET /api/v1/events/stream (Server-Sent Events).
// Both read like the message API: can_read, and a bound key sees its own mailbox only.
import { t } from "elysia";
import {
  EVENT_TYPES,
  eventStreamResponse,
  LIFECYCLE_EVENT_TYPES,
  listEvents,
  MAX_EVENTS_PAGE,
  scopeFor,
  streamHeaders,
  streamSlotsFor,
  streamSource,
} from "../../core/events/index.ts";
import type { Services } from "../../core/services.ts";
import { clampLimit } from "../../request/limit.ts";
import { authErrors, ErrorBody, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";

const nullableObject = t.Union([t.Record(t.String(), t.Unknown()), t.Null()]);
export const MessageReceivedEvent = t.Object(
  {
    event_id: t.String(),
    type: t.Literal("message.received"),
    message_id: t.String(),
    mailbox_id: t.String(),
    thread_id: t.String(),
    from: t.String(),
    subject: t.String(),
    body: t.String(),
    truncated: t.Boolean(),
    sanitization: t.Record(t.String(), t.Unknown()),
    comprehension_status: t.String(),
    classification: nullableObject,
    extraction: nullableObject,
    extraction_error: nullableObject,
    confidence: t.Number(),
  },
  { description: "the webhook's message.received payload, the same event_id" },
);
export const LifecycleEvent = t.Object(
  {
    event_id: t.String(),
    type: t.UnionEnum(LIFECYCLE_EVENT_TYPES),
    created_at: t.String({ description: "when it happened (ISO 8601)" }),
    mailbox_id: t.String(),
    thread_id: t.String(),
    message_id: t.Union([t.String(), t.Null()], { description: "the outbound message (null for a draft not sent yet)" }),
    draft_id: t.Union([t.String(), t.Null()], { description: "the draft, when the message came from one or the event is about one" }),
    to: t.Union([t.String(), t.Null()]),
    subject: t.String(),
    detail: t.Record(t.String(), t.Unknown(), { description: "what is particular to the type (docs/events.md)" }),
  },
  { description: "an outbound or review event: what became of a sent message or a draft" },
);
export const AnyEvent = t.Union([MessageReceivedEvent, LifecycleEvent]);
export const LoggedEventItem = strictObject({
  cursor: t.String({ description: "opaque; resume after this event with `after=<cursor>` or Last-Event-ID" }),
  event: AnyEvent,
});
export const HistoryResponse = strictObject(
  {
    events: t.Array(
      strictObject({
        cursor: t.String({ description: "opaque, for this account: usable as `after` on GET /api/v1/events" }),
        type: t.String(),
        created_at: t.String({ description: "when it was recorded (ISO 8601)" }),
        event: AnyEvent,
      }),
    ),
  },
  "oldest first, at most 200; kept as long as the event log keeps events (EVENT_RETENTION_DAYS)",
);
export const typesQuery = t.String({
  maxLength: 512,
  description: `only these event types, comma-separated (default: every type): ${EVENT_TYPES.join(", ")}`,
});

const cursorQuery = t.String({ maxLength: 32, description: "a cursor this API returned" });

export const eventRoutes = (svc: Services) =>
  apiRoutes(svc, "events")
    .get(
      "/events",
      async ({ principal, query }) =>
        listEvents(svc.sql, principal, {
          after: query.after,
          mailboxId: query.mailbox_id,
          types: query.types,
          limit: clampLimit(query.limit, 100, MAX_EVENTS_PAGE),
        }),
      {
        auth: "read",
        query: strictObject({
          after: t.Optional(cursorQuery),
          mailbox_id: t.Optional(t.String({ minLength: 1 })),
          types: t.Optional(typesQuery),
          limit: t.Optional(t.Integer({ minimum: 1, description: `default 100; values above ${MAX_EVENTS_PAGE} are clamped` })),
        }),
        response: { 200: strictObject({ events: t.Array(LoggedEventItem), next_cursor: t.String() }), 400: ErrorBody, ...authErrors },
        detail: {
          summary: "Read the event log",
          description:
            "Events after `after` (omitted: the oldest retained), oldest first: message.received, and what became of outbound " +
            "mail and drafts (message.sent, message.delivered, message.send_failed, message.bounced, message.complained, " +
            "draft.pending_approval, draft.approved, draft.rejected); `types` narrows them. Poll again with `after=next_cursor`. " +
            "Events are kept 30 days (EVENT_RETENTION_DAYS). A bound key sees its own mailbox (another mailbox_id is 403 key_scope).",
        },
      },
    )
    .get(
      "/events/stream",
      async ({ principal, query, request }) => {
        const scope = scopeFor(principal, query.mailbox_id);
        const source = await streamSource(svc, principal, { ...query, lastEventId: request.headers.get("last-event-id") });
        // HEAD: what GET would answer, at once, without opening a stream.
        if (request.method === "HEAD") return new Response(null, { headers: streamHeaders });
        const release = streamSlotsFor(svc).take(principal.keyId);
        return eventStreamResponse(svc, scope, source, release);
      },
      {
        auth: "read",
        query: strictObject({
          after: t.Optional(cursorQuery),
          mailbox_id: t.Optional(t.String({ minLength: 1 })),
          types: t.Optional(typesQuery),
          consumer: t.Optional(
            t.String({
              maxLength: 64,
              description: "read as this named consumer: events are leased to this stream; acknowledge them with /consumers/{name}/ack",
            }),
          ),
          prefetch: t.Optional(
            t.Integer({
              minimum: 1,
              maximum: 100,
              description: "with consumer: unacknowledged events this stream holds at most (default 10)",
            }),
          ),
        }),
        response: {
          200: t.String({
            description:
              "text/event-stream: `id: <cursor>`, `event: <type>` (e.g. message.received), `data: <event JSON>`; comment heartbeats",
          }),
          400: ErrorBody,
          ...authErrors,
          404: ErrorBody,
          429: ErrorBody,
          503: ErrorBody,
        },
        detail: {
          summary: "Stream events (Server-Sent Events)",
          description:
            "Delivers events as they happen. Resumes after `Last-Event-ID` (or `after`); with neither, starts with the next new event. " +
            "With `consumer`, the stream leases that consumer's events instead (shared with its other readers; acknowledge each). " +
            "A client that does not read is disconnected once its backlog passes the bound; on shutdown the " +
            "stream ends and the client reconnects with its last id. " +
            "The same feed is served as a WebSocket at /api/v1/events/ws (frames `{cursor, event}`; " +
            "`?after=`, `?mailbox_id=`, and `?access_token=` for clients that cannot set headers).",
        },
      },
    );
