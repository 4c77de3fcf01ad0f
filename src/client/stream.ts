// The live event stream as an async iterator: reconnects after a dropped connection or a server
// shutdown, resuming after the last event yielded (Last-Event-ID), so nothing is lost or repeated.
// Errors the client cannot fix by waiting (400, 401, 403, 404) end it with a StreamError.
import type { paths } from "./schema.js";
import { readSse } from "./sse.ts";

type EventsPage = paths["/api/v1/events"]["get"]["responses"][200]["content"]["application/json"];
export type EventItem = EventsPage["events"][number];
export type EventStreamOptions = {
  /** resume after this cursor; without it, events from now on */
  after?: string;
  mailboxId?: string;
  /** only these event types (default: every type: message.received, message.sent, draft.approved ...) */
  types?: string[];
  /** read as this named consumer (acknowledge each event; see consumer()) */
  consumer?: string;
  prefetch?: number;
  signal?: AbortSignal;
  /** longest wait between reconnects (default 30 s) */
  maxBackoffMs?: number;
};

export class StreamError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`event stream refused: HTTP ${status} ${JSON.stringify(body)}`);
  }
}

type Context = { baseUrl: string; apiKey: string; fetch: typeof fetch };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export async function* eventStream(context: Context, options: EventStreamOptions): AsyncGenerator<EventItem> {
  let cursor = options.after ?? null;
  let retryMs = 1000;
  let failures = 0;
  while (!options.signal?.aborted) {
    const url = new URL(`${context.baseUrl}/api/v1/events/stream`);
    if (options.mailboxId) url.searchParams.set("mailbox_id", options.mailboxId);
    if (options.types?.length) url.searchParams.set("types", options.types.join(","));
    if (options.consumer) url.searchParams.set("consumer", options.consumer);
    if (options.prefetch) url.searchParams.set("prefetch", String(options.prefetch));
    const headers: Record<string, string> = { authorization: `Bearer ${context.apiKey}`, accept: "text/event-stream" };
    // A consumer's position lives on the server; a plain stream resumes after what it yielded.
    if (cursor !== null && !options.consumer) headers["last-event-id"] = cursor;
    try {
      const response = await context.fetch(url, { headers, signal: options.signal });
      if (response.status === 400 || response.status === 401 || response.status === 403 || response.status === 404) {
        throw new StreamError(response.status, await response.json().catch(() => null));
      }
      if (response.ok && response.body) {
        failures = 0;
        for await (const message of readSse(response.body, { onId: (id) => void (cursor = id), onRetry: (ms) => void (retryMs = ms) })) {
          // Only event frames: the data-less `id:` resume point and comments carry nothing to yield.
          if (!message.event || !message.data) continue;
          yield { cursor: message.id!, event: JSON.parse(message.data) };
        }
      } else {
        await response.body?.cancel();
      }
    } catch (error) {
      if (error instanceof StreamError) throw error;
      if (options.signal?.aborted) return;
    }
    failures++;
    await sleep(Math.min(retryMs * 2 ** Math.max(0, failures - 1), options.maxBackoffMs ?? 30_000), options.signal);
  }
}
