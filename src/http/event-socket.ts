// The WebSocket transport for a feed, at /api/v1/events/ws: each event is one text frame
// `{"cursor": "...", "event": {...}}` (the shape of GET /api/v1/events items), a heartbeat is
// `{"heartbeat": "<time>"}`. Authorized like the stream: a bearer header, or, for clients that
// cannot set headers (browsers), `?access_token=<key>`. Resume with `?after=<cursor>`.
// Bun serves it (Elysia's .ws needs the server's upgrade); under Deno the SSE stream serves.
import { Elysia, t } from "elysia";
import { latestCursor, parseCursor, scopeFor, type EventScope } from "../core/events.ts";
import type { Services } from "../core/services.ts";
import { authenticate, authorize } from "./auth.ts";
import { startFeed, type CloseReason, type Feed } from "./event-feed.ts";

type Opened = { scope: EventScope; after: string };
type RawSocket = { send(data: string): number; close(code?: number, reason?: string): void; getBufferedAmount(): number };

// Close codes: 1001 going away (shutdown: reconnect elsewhere), 1008 policy (too slow), 1011 error.
const closeCodes: Record<CloseReason, number> = { client: 1000, drain: 1001, slow: 1008, error: 1011 };

export const eventSocketRoutes = (svc: Services) => {
  const decided = new WeakMap<Request, Opened>();
  const feeds = new WeakMap<object, Feed>();
  return new Elysia({ name: "routes:events-ws", prefix: "/api/v1" }).ws("/events/ws", {
    // OpenAPI has no WebSocket operation: the stream's description and docs/events.md name it.
    detail: { hide: true },
    query: t.Object({
      after: t.Optional(t.String({ maxLength: 32 })),
      mailbox_id: t.Optional(t.String({ minLength: 1 })),
      access_token: t.Optional(t.String({ maxLength: 512 })),
    }),
    async beforeHandle({ request, query }) {
      const header = request.headers.get("authorization") ?? (query.access_token ? `Bearer ${query.access_token}` : null);
      const principal = await authenticate(svc.sql, header);
      authorize(principal, "read");
      const scope = scopeFor(principal, query.mailbox_id);
      const after = query.after === undefined ? await latestCursor(svc.sql, scope) : parseCursor(query.after);
      decided.set(request, { scope, after });
    },
    open(ws) {
      const raw = ws.raw as unknown as RawSocket;
      const opened = decided.get((ws.data as { request: Request }).request);
      if (!opened) return raw.close(1011, "not authorized");
      const feed = startFeed(svc, opened.scope, opened.after, {
        send: (event) => void raw.send(`{"cursor":"${event.cursor}","event":${event.payload}}`),
        heartbeat: () => void raw.send(JSON.stringify({ heartbeat: new Date().toISOString() })),
        backlogBytes: () => raw.getBufferedAmount(),
        end(reason) {
          try {
            raw.close(closeCodes[reason], reason === "drain" ? "server shutting down, reconnect to resume" : reason);
          } catch {
            // already closed
          }
        },
      });
      if (!feed) return raw.close(1001, "server shutting down, reconnect to resume");
      feeds.set(raw, feed);
    },
    close(ws) {
      feeds.get(ws.raw as object)?.close("client");
    },
  });
};
