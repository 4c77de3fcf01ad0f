// A consumer's events as a stream's source: the stream leases events to its client, at most
// `prefetch` unacknowledged at a time (the client acknowledges with POST
// /api/v1/consumers/{name}/ack, or an `{"ack": [...]}` WebSocket frame), so several streams of one
// consumer share its events. It looks again when woken (new events, or an acknowledgement
// anywhere, both notified) and every second (leases of other readers that ran out).

import type { Principal } from "../principal.ts";
import type { Services } from "../services.ts";
import { claimEvents, heldLeases } from "./consumers.ts";
import type { FeedSource } from "./feed.ts";

export function consumerSource(svc: Services, principal: Principal, name: string, prefetch: number): FeedSource {
  let held: string[] = [];
  return {
    pollMs: 1000,
    async next() {
      held = await heldLeases(svc.sql, principal, name, held);
      const room = prefetch - held.length;
      if (room <= 0) return { events: [], more: false };
      const leased = await claimEvents(svc.sql, principal, name, { limit: room, leaseSeconds: svc.config.events.leaseSeconds });
      held.push(...leased.map((item) => item.cursor));
      return {
        events: leased.map((item) => ({ cursor: item.cursor, payload: JSON.stringify(item.event), type: item.event.type })),
        more: false,
      };
    },
  };
}
