// How many idle event streams one API process holds, and its memory: the real service
// (`src/main.ts`, ROLES=api) against a fresh database; this process opens N SSE streams over raw
// sockets, all for one account (the worst case for fan-out), waits, then records the service's
// resident memory, and commits one event: the time until every stream has it is the fan-out time.
//
//   npm run bench -- stream-connections [--streams 5000] [--hold-s 20]
import net from "node:net";
import { appendEvent } from "../src/core/events/log.ts";
import { newId } from "../src/core/ids.ts";
import { makeSql } from "../src/db.ts";
import { startBenchService } from "./stream-service.ts";

type Conn = { socket: net.Socket; bytes: number; gotEvent: number | null; closed: boolean };

export default async function run(args: string[]): Promise<void> {
  let streams = 5000;
  let holdS = 20;
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === "--streams" && /^\d+$/.test(args[i + 1] ?? "")) streams = Number(args[i + 1]);
    else if (args[i] === "--hold-s" && /^\d+$/.test(args[i + 1] ?? "")) holdS = Number(args[i + 1]);
    else throw new Error("usage: npm run bench -- stream-connections [--streams N] [--hold-s S]");
  }
  const service = await startBenchService({ ROLES: "api" });
  const sql = makeSql(service.databaseUrl, { max: 2 });
  try {
    const mailboxId = newId("mbx"); // the log does not check it; no mail flows in this benchmark
    await Bun.sleep(500);
    const baseline = service.rssMb();
    const conns: Conn[] = [];
    const openStarted = performance.now();
    const request = `GET /api/v1/events/stream HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${service.key}\r\naccept: text/event-stream\r\n\r\n`;
    for (let i = 0; i < streams; i++) {
      const conn: Conn = { socket: net.connect(service.httpPort, "127.0.0.1"), bytes: 0, gotEvent: null, closed: false };
      conn.socket.on("data", (chunk: Buffer) => {
        conn.bytes += chunk.length;
        if (conn.gotEvent === null && chunk.includes("event: message.received")) conn.gotEvent = performance.now();
      });
      conn.socket.on("close", () => void (conn.closed = true));
      conn.socket.on("error", () => {});
      conn.socket.write(request);
      conns.push(conn);
      if (i % 200 === 199) await Bun.sleep(20); // do not overrun the listen backlog
    }
    // Open: the response head and the stream's first lines have arrived.
    while (conns.some((conn) => conn.bytes === 0 && !conn.closed) && performance.now() - openStarted < 120_000) await Bun.sleep(100);
    const openedMs = performance.now() - openStarted;
    const opened = conns.filter((conn) => conn.bytes > 0 && !conn.closed).length;
    await Bun.sleep(holdS * 1000);
    const held = conns.filter((conn) => !conn.closed).length;
    const rss = service.rssMb();

    const id = newId("evt");
    const payload = JSON.stringify({
      event_id: id,
      type: "message.received",
      message_id: newId("msg"),
      mailbox_id: mailboxId,
      thread_id: newId("thr"),
      from: "a@example.org",
      subject: "fan-out",
      body: "x",
      truncated: false,
      sanitization: {},
      comprehension_status: "complete",
      classification: null,
      extraction: null,
      extraction_error: null,
      confidence: 1,
    });
    await sql`select 1`; // the pool's connection is open before the clock starts
    const committedAt = performance.now();
    await sql.begin((tx) =>
      appendEvent(tx, { id, accountId: service.accountId, mailboxId, messageId: JSON.parse(payload).message_id, payload }),
    );
    while (conns.some((conn) => !conn.closed && conn.gotEvent === null) && performance.now() - committedAt < 60_000) await Bun.sleep(20);
    const arrivals = conns
      .filter((conn) => conn.gotEvent !== null)
      .map((conn) => conn.gotEvent! - committedAt)
      .sort((a, b) => a - b);

    console.log(`${streams} idle SSE streams on one API process (ROLES=api, one account), held ${holdS} s`);
    console.log(`  opened ${opened} in ${(openedMs / 1000).toFixed(1)} s; still open after the hold: ${held}`);
    console.log(
      `  service RSS: ${baseline} MB before, ${rss} MB with the streams open: ${(((rss - baseline) * 1024) / Math.max(1, held)).toFixed(1)} KB per stream`,
    );
    console.log(
      `  one event to all of them: first ${arrivals[0]?.toFixed(0)} ms, median ${arrivals[Math.floor(arrivals.length / 2)]?.toFixed(0)} ms, last ${arrivals.at(-1)?.toFixed(0)} ms (${arrivals.length} received)`,
    );
    for (const conn of conns) conn.socket.destroy();
  } finally {
    await sql.end({ timeout: 5 });
    await service.stop();
  }
}
