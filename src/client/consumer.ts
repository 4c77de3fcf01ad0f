// A named consumer through the typed client: open it, claim and acknowledge over polling, or
// iterate its stream, acknowledging each item when its work is done.
import type createClient from "openapi-fetch";
import type { paths } from "./schema.js";
import { type EventItem, eventStream } from "./stream.ts";

type Api = ReturnType<typeof createClient<paths>>;
type Context = { baseUrl: string; apiKey: string; fetch: typeof fetch; api: Api };
export type LeasedItem = EventItem & { ack(): Promise<void> };

async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new Error(`consumer request failed: HTTP ${response.status} ${JSON.stringify(error)}`);
  return data as T;
}

export function consumerHandle(context: Context, name: string, options: { mailboxId?: string }) {
  const { api } = context;
  const params = { path: { name } };
  const ack = (cursors: string[]) => ok(api.POST("/api/v1/consumers/{name}/ack", { params, body: { cursors } }));
  const open = () => ok(api.POST("/api/v1/consumers", { body: { name, ...(options.mailboxId ? { mailbox_id: options.mailboxId } : {}) } }));
  return {
    /** Creates the consumer, or returns it as it is. */
    open,
    claim: (body: { limit?: number; lease_seconds?: number } = {}) => ok(api.POST("/api/v1/consumers/{name}/claim", { params, body })),
    ack,
    /** The consumer's events over the live stream; call item.ack() when its work is done. */
    async *stream(streamOptions: { prefetch?: number; signal?: AbortSignal } = {}): AsyncGenerator<LeasedItem> {
      await open();
      for await (const item of eventStream(context, { consumer: name, ...streamOptions })) {
        yield { ...item, ack: async () => void (await ack([item.cursor])) };
      }
    },
  };
}

export type ConsumerHandle = ReturnType<typeof consumerHandle>;
