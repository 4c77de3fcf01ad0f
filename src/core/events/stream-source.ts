// Which events a stream (SSE or WebSocket) carries: a named consumer's leases, or the log after
// the client's cursor (Last-Event-ID, then ?after; with neither, only events from now on).

import type { Principal } from "../principal.ts";
import type { Services } from "../services.ts";
import { consumerSource } from "./consumer-source.ts";
import { getConsumer } from "./consumers.ts";
import { cursorSource, type FeedSource } from "./feed.ts";
import { cursorOf, latestPosition, positionOf, scopeFor } from "./log.ts";

export async function streamSource(
  svc: Services,
  principal: Principal,
  query: { after?: string; mailbox_id?: string; types?: string; consumer?: string; prefetch?: number; lastEventId?: string | null },
): Promise<FeedSource> {
  if (query.consumer !== undefined) {
    await getConsumer(svc.sql, principal, query.consumer); // 404 before the stream opens
    return consumerSource(svc, principal, query.consumer, query.prefetch ?? 10);
  }
  const scope = scopeFor(principal, query.mailbox_id, query.types);
  const resumeFrom = query.lastEventId ?? query.after;
  const after =
    resumeFrom === undefined || resumeFrom === null ? await latestPosition(svc.sql, scope) : await positionOf(svc.sql, scope, resumeFrom);
  return cursorSource(svc, scope, after, await cursorOf(svc.sql, scope, after));
}
