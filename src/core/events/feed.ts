// One open stream's delivery loop, whatever carries it (SSE or WebSocket): it reads the log after
// the last cursor it sent, in order, whenever the hub wakes it, so a resumed or woken feed sends
// each event once and never skips one. Back-pressure: the feed stops reading while the client's
// unsent bytes exceed the bound (memory stays bounded: the log is the buffer), and a client that
// stays over the bound for the stall limit is disconnected. Heartbeats keep idle proxies open.

import { errorFields } from "../../log.ts";
import type { Services } from "../services.ts";
import { eventHubFor, type HubMember } from "./hub.ts";
import { type EventScope, type LoggedEvent, readEventsAfter } from "./log.ts";

const PAGE = 100;

export type CloseReason = "client" | "drain" | "slow" | "error";

/** What a transport provides to a feed. */
export type FeedSink = {
  send(event: LoggedEvent): void;
  heartbeat(): void;
  /** bytes given to the connection and not yet taken by the client's socket */
  backlogBytes(): number;
  /** ends the connection (idempotent) */
  end(reason: CloseReason): void;
};

/** Where a feed's events come from: the log after a cursor, or a consumer's leases. */
export type FeedSource = {
  /** the next events to send, and whether more may be ready at once */
  next(): Promise<{ events: LoggedEvent[]; more: boolean }>;
  /** also look every this many ms, not only when woken (leases run out without a notification) */
  pollMs?: number;
  /** where a cursor source starts: told to the client, so a reconnect before any event loses nothing */
  startCursor?: string;
};

/** The log after a position, a page at a time; `startCursor` is that position as the client's cursor. */
export function cursorSource(svc: Services, scope: EventScope, after: string, startCursor: string): FeedSource {
  let position = after;
  return {
    startCursor,
    async next() {
      const events = await readEventsAfter(svc.sql, scope, position, PAGE);
      if (events.length > 0) position = events.at(-1)!.position!;
      return { events, more: events.length === PAGE };
    },
  };
}

export type Feed = { close(reason: CloseReason): void; closed: Promise<CloseReason> };

export function startFeed(svc: Services, scope: EventScope, source: FeedSource, sink: FeedSink): Feed | null {
  const { heartbeatMs, maxQueueBytes, stallMs } = svc.config.events;
  const hub = eventHubFor(svc);
  let pending = true;
  let running = false;
  let isClosed = false;
  let resolveClosed!: (reason: CloseReason) => void;
  const closed = new Promise<CloseReason>((resolve) => (resolveClosed = resolve));

  const close = (reason: CloseReason) => {
    if (isClosed) return;
    isClosed = true;
    clearInterval(heartbeat);
    if (poll) clearInterval(poll);
    hub.leave(member);
    sink.end(reason);
    resolveClosed(reason);
  };

  // Waits for the client to take its backlog; false when it stays over the bound too long.
  const drained = async (): Promise<boolean> => {
    const deadline = performance.now() + stallMs;
    while (!isClosed && sink.backlogBytes() > maxQueueBytes) {
      if (performance.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return true;
  };

  const dropSlow = () => {
    svc.log.warn("events.slow_client_dropped", { account_id: scope.accountId, backlog_bytes: sink.backlogBytes() });
    close("slow");
  };

  const pump = async () => {
    running = true;
    try {
      while (pending && !isClosed) {
        pending = false;
        for (;;) {
          const { events, more } = await source.next();
          // The backlog is checked before every event, not once a page: a page of large events
          // would otherwise put up to a hundred of them over the bound.
          for (const event of events) {
            if (isClosed) return;
            if (!(await drained())) return dropSlow();
            sink.send(event);
          }
          if (!(await drained())) return dropSlow();
          if (!more) break;
        }
      }
    } catch (error) {
      svc.log.error("events.feed_failed", { account_id: scope.accountId, ...errorFields(error) });
      close("error");
    } finally {
      running = false;
    }
  };

  const member: HubMember = {
    accountId: scope.accountId,
    wake() {
      pending = true;
      if (!running && !isClosed) void pump();
    },
    drain: () => close("drain"),
  };
  if (!hub.join(member)) return null;
  const heartbeat = setInterval(() => {
    if (sink.backlogBytes() <= maxQueueBytes) sink.heartbeat();
  }, heartbeatMs);
  const poll = source.pollMs ? setInterval(() => member.wake(), source.pollMs) : null;
  // The first read waits for LISTEN to be in place, so nothing committed after it goes unheard.
  void hub.ready().then(
    () => member.wake(),
    (error) => {
      svc.log.error("events.listen_failed", errorFields(error));
      close("error");
    },
  );
  return { close, closed };
}
