// Helpers for the event tests: events appended through the core function the screening task
// uses (for volume and ordering), each with the cursor its account's clients are given, and a real SSE client over HTTP that parses frames as they come.

import { connect } from "node:net";
import { appendEvent, cursorOf } from "../../src/core/events/log.ts";
import { newId } from "../../src/core/ids.ts";
import type { Sql } from "../../src/db.ts";

export async function appendTestEvent(sql: Sql, accountId: string, mailboxId: string, options: { body?: string; subject?: string } = {}) {
  const id = newId("evt");
  const messageId = newId("msg");
  const payload = JSON.stringify({
    event_id: id,
    type: "message.received",
    message_id: messageId,
    mailbox_id: mailboxId,
    thread_id: newId("thr"),
    from: "sender@example.org",
    subject: options.subject ?? "test",
    body: options.body ?? "hello",
    truncated: false,
    sanitization: {},
    comprehension_status: "complete",
    classification: null,
    extraction: null,
    extraction_error: null,
    confidence: 1,
  });
  const position = await sql.begin((tx) => appendEvent(tx, { id, accountId, mailboxId, messageId, payload }));
  // `cursor`: what a client of the account is given for the event; `position`: the log's own.
  return { id, cursor: await cursorOf(sql, { accountId }, position!), position: position!, messageId };
}

export type SseFrame = { id: string | null; event: string | null; data: string; at: number };

export type SseClient = {
  status: number;
  headers: Headers;
  frames: SseFrame[];
  comments: string[];
  /** every frame so far once there are at least `count` */
  waitFor(count: number, timeoutMs?: number): Promise<SseFrame[]>;
  /** resolves when the server ends the stream */
  ended: Promise<"end" | "error">;
  close(): void;
};

export async function openSse(url: string, key: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${key}`, accept: "text/event-stream", ...headers },
    signal: abort.signal,
  });
  const client: SseClient = {
    status: response.status,
    headers: response.headers,
    frames: [],
    comments: [],
    waitFor: async () => [],
    ended: Promise.resolve("end"),
    close: () => abort.abort(),
  };
  if (response.status !== 200 || !response.body) return client;
  const waiters = new Set<() => void>();
  client.waitFor = (count, timeoutMs = 15_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (client.frames.length >= count) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(client.frames.slice());
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`expected ${count} frames, got ${client.frames.length}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  client.ended = (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return "end" as const;
        buffer += value;
        let split: number;
        while ((split = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          const frame: SseFrame = { id: null, event: null, data: "", at: performance.now() };
          let hasData = false;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) client.comments.push(line.slice(1).trim());
            else if (line.startsWith("id: ")) frame.id = line.slice(4);
            else if (line.startsWith("event: ")) frame.event = line.slice(7);
            else if (line.startsWith("data: ")) {
              frame.data += line.slice(6);
              hasData = true;
            }
          }
          if (hasData) client.frames.push(frame);
          for (const wake of [...waiters]) wake();
        }
      }
    } catch {
      return "error" as const;
    }
  })();
  return client;
}

/**
 * A request written on a raw socket (a WebSocket upgrade when `upgrade`), answered with its status,
 * headers and body as text: what a client sees before any upgrade happens.
 */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; key: string; upgrade?: boolean },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const done = () => {
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    };
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const head = text.indexOf("\r\n\r\n");
      if (head < 0) return;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, head))?.[1] ?? -1);
      if (status === 101 || options.method === "HEAD" || (length >= 0 && Buffer.byteLength(text.slice(head + 4)) >= length)) done();
    });
    socket.on("end", done);
    socket.on("error", reject);
    const upgrade = options.upgrade
      ? "upgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n"
      : "connection: close\r\n";
    socket.write(
      `${options.method ?? "GET"} ${options.path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${options.key}\r\n${upgrade}\r\n`,
    );
  });
}
