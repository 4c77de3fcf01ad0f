// The WebSocket transport for a feed, at /api/v1/events/ws: each event is one text frame
// `{"cursor": "...", "event": {...}}` (the shape of GET /api/v1/events items), a heartbeat is
// `{"heartbeat": "<time>"}`. Authorized like the stream: a bearer header, or, for clients that
// cannot set headers (browsers), `?access_token=<key>`. Resume with `?after=<cursor>`.
// Bun serves it (Elysia's .ws needs the server's upgrade); under Deno the SSE stream serves.
import { Elysia, t } from "elysia";
import { CoreError, isCoreError } from "../core/errors.ts";
import {
  ackEvents,
  type CloseReason,
  type EventScope,
  type Feed,
  type FeedSource,
  scopeFor,
  startFeed,
  streamSlotsFor,
  streamSource,
} from "../core/events/index.ts";
import type { Principal } from "../core/principal.ts";
import type { Services } from "../core/services.ts";
import { authenticate, authorize } from "../request/auth.ts";
import { errorText } from "../request/error-answers.ts";
import { rateLimiterFor } from "../request/rate-limit.ts";
import { socketCooldownFor } from "./socket-cooldown.ts";
import { type FrameGuard, makeFrameGuard } from "./socket-frames.ts";

type Opened = {
  principal: Principal;
  scope: EventScope;
  source: FeedSource;
  consumer: string | null;
  release: () => void;
  opened?: boolean;
};

/** A slot taken before an upgrade that never opened is given back after this long. */
const UNOPENED_SLOT_MS = 10_000;
type RawSocket = { send(data: string): number; close(code?: number, reason?: string): void; getBufferedAmount(): number };

// Close codes: 1001 going away (shutdown: reconnect elsewhere), 1008 policy (too slow), 1011 error.
const closeCodes: Record<CloseReason, number> = { client: 1000, drain: 1001, slow: 1008, error: 1011 };

const socketQuery = t.Object({
  after: t.Optional(t.String({ maxLength: 32 })),
  mailbox_id: t.Optional(t.String({ minLength: 1 })),
  types: t.Optional(t.String({ maxLength: 512 })),
  access_token: t.Optional(t.String({ maxLength: 512 })),
  consumer: t.Optional(t.String({ maxLength: 64 })),
  prefetch: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
});
type SocketQuery = typeof socketQuery.static;

/** Every check an upgrade passes before it opens (401, 403, 400 for a bad cursor or type, 404 for an unknown consumer). */
async function admit(svc: Services, request: Request, query: SocketQuery) {
  const header = request.headers.get("authorization") ?? (query.access_token ? `Bearer ${query.access_token}` : null);
  const principal = await authenticate(svc.sql, header);
  authorize(principal, "read");
  await socketCooldownFor(svc).check(principal.keyId);
  const scope = scopeFor(principal, query.mailbox_id, query.types);
  const source = await streamSource(svc, principal, query);
  return { principal, scope, source };
}

export const eventSocketRoutes = (svc: Services) => {
  const decided = new WeakMap<Request, Opened>();
  const feeds = new WeakMap<object, Feed>();
  const consumersOf = new WeakMap<object, { principal: Principal; name: string }>();
  const releasesOf = new WeakMap<object, () => void>();
  const clientsOf = new WeakMap<object, { principal: Principal; guard: FrameGuard; closed: boolean }>();
  const app = new Elysia({ name: "routes:events-ws", prefix: "/api/v1" }).ws("/events/ws", {
    // OpenAPI has no WebSocket operation: the stream's description and docs/events.md name it.
    detail: { hide: true },
    query: socketQuery,
    async beforeHandle({ request, query }) {
      const { principal, scope, source } = await admit(svc, request, query);
      // The key's stream slot: a refusal is a 429 JSON answer before the upgrade.
      // Elysia runs this hook twice for one upgrade (as a route hook and again in its Bun adapter):
      // the second run gives back the slot the first took.
      decided.get(request)?.release();
      const release = streamSlotsFor(svc).take(principal.keyId);
      setTimeout(() => {
        if (!decided.get(request)?.opened) release();
      }, UNOPENED_SLOT_MS).unref?.();
      decided.set(request, { principal, scope, source, consumer: query.consumer ?? null, release });
    },
    open(ws) {
      const raw = ws.raw as unknown as RawSocket;
      const opened = decided.get((ws.data as { request: Request }).request);
      if (!opened) return raw.close(1011, "not authorized");
      opened.opened = true;
      releasesOf.set(raw, opened.release);
      const feed = startFeed(svc, opened.scope, opened.source, {
        // 0: Bun dropped the frame (its own buffer limit): a gap the client cannot see, so end it.
        send: (event) => {
          if (raw.send(`{"cursor":"${event.cursor}","event":${event.payload}}`) === 0) raw.close(closeCodes.slow, "slow");
        },
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
      if (!feed) {
        opened.release();
        return raw.close(1001, "server shutting down, reconnect to resume");
      }
      feeds.set(raw, feed);
      clientsOf.set(raw, { principal: opened.principal, guard: makeFrameGuard(svc.config.eventSocket), closed: false });
      if (opened.consumer) consumersOf.set(raw, { principal: opened.principal, name: opened.consumer });
    },
    // With a consumer, the client acknowledges over the socket: {"ack": ["<cursor>", ...]}. Every
    // frame, an ack or not, is counted first (socket-frames.ts): by the connection's own budget,
    // then by the key's rate limit; a frame past either closes the connection with 1008.
    async message(ws, message) {
      const raw = ws.raw as unknown as RawSocket;
      const client = clientsOf.get(raw);
      if (!client || client.closed) return;
      const verdict = client.guard.admit();
      if (!verdict.admitted) return refuse(svc, raw, client, verdict.reason);
      try {
        const limited = rateLimiterFor(svc).take(client.principal.keyId);
        if (limited instanceof Promise) await limited;
      } catch (error) {
        client.guard.done();
        if (isCoreError(error, "rate_limited")) return refuse(svc, raw, client, "rate limited");
        throw error;
      }
      try {
        await answerFrame(raw, consumersOf.get(raw), message);
      } finally {
        client.guard.done();
      }
    },
    close(ws) {
      releasesOf.get(ws.raw as object)?.();
      const client = clientsOf.get(ws.raw as object);
      if (client) client.closed = true;
      feeds.get(ws.raw as object)?.close("client");
    },
  });

  // HEAD answers like HEAD on the SSE stream: the upgrade's checks, then 200 with no body, at once;
  // it opens nothing and takes no slot (a probe must not cost a stream).
  app.head(
    "/events/ws",
    async ({ request, query }) => {
      await admit(svc, request, query);
      return new Response(null, { headers: { "cache-control": "no-cache, no-transform" } });
    },
    { query: socketQuery, detail: { hide: true } },
  );

  async function answerFrame(raw: RawSocket, consumer: { principal: Principal; name: string } | undefined, message: unknown) {
    const cursors = (message as { ack?: unknown })?.ack;
    if (
      !consumer ||
      !Array.isArray(cursors) ||
      cursors.length === 0 ||
      cursors.length > 500 ||
      !cursors.every((c) => typeof c === "string")
    ) {
      raw.send(JSON.stringify({ error: 'expected {"ack": [cursor, ...]} on a consumer stream' }));
      return;
    }
    try {
      const result = await ackEvents(svc.sql, consumer.principal, consumer.name, cursors as string[]);
      raw.send(JSON.stringify({ acked: result.acked, acked_through: result.acked_through }));
    } catch (error) {
      raw.send(JSON.stringify({ error: error instanceof CoreError ? errorText(error) : (error as Error).message }));
    }
  }
  return app;
};

/** Closes a flooding connection (1008) and has its key wait before it opens another. */
function refuse(svc: Services, raw: RawSocket, client: { principal: Principal; closed: boolean }, reason: string): void {
  if (client.closed) return;
  client.closed = true;
  socketCooldownFor(svc).penalize(client.principal.keyId);
  try {
    raw.close(1008, reason);
  } catch {
    // already closed
  }
}
