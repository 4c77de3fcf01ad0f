// The webhook receiver of a chaos run: a real HTTP server on loopback that records, per message
// subject, when its first request arrived and every event_id it came with. It can go down
// (connections refused) and come back on the same port, and answer slowly.
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Arrival = { firstAt: number; eventIds: Set<string>; requests: number };

export type ChaosReceiver = {
  url: string;
  arrivals: Map<string, Arrival>;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
};

export async function startChaosReceiver(options: { delayMs?: number } = {}): Promise<ChaosReceiver> {
  const arrivals = new Map<string, Arrival>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const at = performance.now();
      try {
        const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { subject: string; event_id: string };
        const arrival = arrivals.get(payload.subject) ?? { firstAt: at, eventIds: new Set<string>(), requests: 0 };
        arrival.eventIds.add(payload.event_id);
        arrival.requests++;
        arrivals.set(payload.subject, arrival);
      } catch {
        // not one of ours; answered all the same
      }
      setTimeout(() => response.writeHead(200, { "content-type": "text/plain" }).end("ok"), options.delayMs ?? 0);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const listen = (port: number) => new Promise<void>((done) => server.listen(port, "127.0.0.1", () => done()));
  const stop = async () => {
    const closed = new Promise<void>((done) => server.close(() => done()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/mail`,
    arrivals,
    down: stop,
    up: () => listen(port),
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}
