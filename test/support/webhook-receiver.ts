// A real HTTP webhook receiver on loopback (node:http): it keeps every request's exact raw bytes
// and arrival time, and a test decides per request how (or whether) to answer.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type ReceivedRequest = {
  /** performance.now() when the whole body had arrived */
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  text: string;
};

/** Answers one request; may be async, and may leave the response open on purpose. */
export type Responder = (request: ReceivedRequest, response: ServerResponse, index: number) => void | Promise<void>;

export type Receiver = {
  port: number;
  url: string;
  requests: ReceivedRequest[];
  respond: Responder;
  /** Every request so far once there are at least `count`; throws after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
};

export const answer =
  (status: number, body = "", headers: Record<string, string> = {}): Responder =>
  (_request, response) => {
    response.writeHead(status, { "content-type": "text/plain", ...headers });
    response.end(body);
  };

export async function startReceiver(respond: Responder = answer(200, "ok"), host = "127.0.0.1"): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const receiver = { requests: [] as ReceivedRequest[], respond } as Receiver;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks);
      const received: ReceivedRequest = {
        at: performance.now(),
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        raw,
        text: raw.toString("utf8"),
      };
      const index = receiver.requests.push(received) - 1;
      for (const wake of waiters) wake();
      void Promise.resolve(receiver.respond(received, response, index)).catch(() => response.destroy());
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const { port } = server.address() as AddressInfo;

  receiver.port = port;
  receiver.url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/hooks/mail`;
  receiver.waitForRequests = (count, timeoutMs = 15_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (receiver.requests.length < count) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(receiver.requests);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`receiver got ${receiver.requests.length} of ${count} requests within ${timeoutMs} ms`));
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });
  receiver.close = async () => {
    // Held-open requests would otherwise keep close() waiting.
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
