// Server-Sent Events transport for a feed: `id:` is the cursor (browsers and clients send it
// back as Last-Event-ID on reconnect), `event: message.received`, `data:` the webhook's exact
// JSON. A comment line is the heartbeat. The stream's queue size in bytes is the back-pressure
// signal: Bun stops taking chunks when the client's socket is full.

import type { Services } from "../services.ts";
import { type CloseReason, type Feed, type FeedSource, startFeed } from "./feed.ts";
import type { EventScope } from "./log.ts";

const encoder = new TextEncoder();

export const streamHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** `release` frees the key's stream slot (stream-slots.ts) once the stream ends, however it ends. */
export function eventStreamResponse(svc: Services, scope: EventScope, source: FeedSource, release: () => void = () => {}): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  let feed: Feed | null = null;
  const write = (text: string) => {
    if (!ended) controller.enqueue(encoder.encode(text));
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        // How long a browser's EventSource waits before reconnecting.
        write("retry: 2000\n\n");
        // An id with no data dispatches nothing but is the Last-Event-ID of a reconnect.
        if (source.startCursor !== undefined) write(`id: ${source.startCursor}\n\n`);
      },
      cancel() {
        ended = true;
        feed?.close("client");
      },
    },
    { highWaterMark: svc.config.events.maxQueueBytes, size: (chunk) => chunk?.byteLength ?? 0 },
  );
  feed = startFeed(svc, scope, source, {
    send: (event) => write(`id: ${event.cursor}\nevent: ${event.type ?? "message.received"}\ndata: ${event.payload}\n\n`),
    heartbeat: () => write(": heartbeat\n\n"),
    backlogBytes: () => (ended ? 0 : svc.config.events.maxQueueBytes - (controller.desiredSize ?? 0)),
    end(reason: CloseReason) {
      if (ended) return;
      if (reason === "drain") write(": server shutting down, reconnect to resume\n\n");
      ended = true;
      try {
        // Erroring the stream aborts the response (queued bytes are dropped); with no reason
        // given, Bun logs nothing. A clean close lets the queued bytes go out first.
        if (reason === "slow" || reason === "error") controller.error(undefined);
        else controller.close();
      } catch {
        // already closed by the client
      }
    },
  });
  void feed?.closed.then(release);
  if (!feed) release();
  if (!feed)
    return new Response(JSON.stringify({ error: "server is shutting down" }), {
      status: 503,
      headers: { "content-type": "application/json", "retry-after": "1" },
    });
  return new Response(stream, { headers: streamHeaders });
}
