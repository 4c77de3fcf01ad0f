// A Server-Sent Events reader over fetch (web-standard: Bun, Deno, Node, browsers): yields each
// event's id and data, and reports `id:`-only blocks (a resume point) and `retry:` as they come.
export type SseMessage = { id: string | null; event: string | null; data: string };
export type SseHandlers = { onId(id: string): void; onRetry(ms: number): void };

export async function* readSse(body: ReadableStream<Uint8Array>, handlers: SseHandlers): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let split: number;
      while ((split = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, split);
        buffer = buffer.slice(split + 2);
        const message: SseMessage = { id: null, event: null, data: "" };
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line === "" || line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "id") {
            message.id = value;
            handlers.onId(value);
          } else if (field === "event") message.event = value;
          else if (field === "data") data.push(value);
          else if (field === "retry" && /^\d+$/.test(value)) handlers.onRetry(Number(value));
        }
        if (data.length > 0) {
          message.data = data.join("\n");
          yield message;
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
