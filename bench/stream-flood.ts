// What a WebSocket flood from one key costs another key: the real service (`src/main.ts`, every
// role in one process) against a fresh database. A calm account holds one WebSocket event stream
// and polls GET /api/v1/mailboxes; events for it are appended to the log at a steady pace (as the
// screening task appends them), and each one's time from commit to its frame is measured, with
// each request's time. First quietly, then while a flooding key sends ack frames as fast as its
// sockets take them on several consumer WebSockets, reconnecting each time one is closed (1008).
// Both phases run side by side in one run, so the ratio holds on a busy machine.
//
//   npm run bench -- stream-flood [--events 200] [--interval-ms 20] [--flooders 4] [--reconnect-ms 0]
// (--reconnect-ms: how long a flooding socket waits before it connects again once closed)

import { createAccount } from "../src/core/accounts/accounts.ts";
import { createKey } from "../src/core/accounts/keys.ts";
import { appendEvent } from "../src/core/events/index.ts";
import { newId } from "../src/core/ids.ts";
import { makeSql } from "../src/db.ts";
import { percentile, startBenchService } from "./stream-service.ts";

type Phase = { events: number[]; requests: number[]; missing: number; outOfOrder: number; floodFrames: number; floodCloses: number };

export default async function run(args: string[]): Promise<void> {
  let events = 200;
  let intervalMs = 20;
  let flooders = 4;
  let reconnectMs = 0;
  for (let i = 0; i < args.length; i += 2) {
    const value = args[i + 1] ?? "";
    if (args[i] === "--events" && /^\d+$/.test(value)) events = Number(value);
    else if (args[i] === "--interval-ms" && /^\d+$/.test(value)) intervalMs = Number(value);
    else if (args[i] === "--flooders" && /^\d+$/.test(value)) flooders = Number(value);
    else if (args[i] === "--reconnect-ms" && /^\d+$/.test(value)) reconnectMs = Number(value);
    else throw new Error("usage: npm run bench -- stream-flood [--events N] [--interval-ms MS] [--flooders N] [--reconnect-ms MS]");
  }
  const service = await startBenchService({});
  const sql = makeSql(service.databaseUrl, { max: 2 });
  try {
    const base = `http://127.0.0.1:${service.httpPort}`;
    const calm = await createAccount(sql, { name: "calm", plan: "paid" });
    const calmKey = (await createKey(sql, { accountId: calm.id, scope: "api" })).secret;
    const calmHeaders = { authorization: `Bearer ${calmKey}`, "content-type": "application/json" };
    const mailbox = (await (
      await fetch(`${base}/api/v1/mailboxes`, { method: "POST", headers: calmHeaders, body: JSON.stringify({ slug: "calm" }) })
    ).json()) as { id: string };
    const flooderHeaders = { authorization: `Bearer ${service.key}`, "content-type": "application/json" };
    await fetch(`${base}/api/v1/mailboxes`, { method: "POST", headers: flooderHeaders, body: JSON.stringify({ slug: "flood" }) });
    await fetch(`${base}/api/v1/consumers`, { method: "POST", headers: flooderHeaders, body: JSON.stringify({ name: "flood" }) });

    const ws = `ws://127.0.0.1:${service.httpPort}/api/v1/events/ws`;
    const phase = async (flood: boolean): Promise<Phase> => {
      const result: Phase = { events: [], requests: [], missing: 0, outOfOrder: 0, floodFrames: 0, floodCloses: 0 };
      const arrived: { subject: string; at: number }[] = [];
      const stream = new WebSocket(`${ws}?access_token=${calmKey}`);
      stream.addEventListener("message", (message) => {
        const frame = JSON.parse(String(message.data));
        if (frame.event?.subject) arrived.push({ subject: frame.event.subject, at: performance.now() });
      });
      await new Promise((resolve, reject) => {
        stream.addEventListener("open", resolve);
        stream.addEventListener("error", reject);
      });

      // The flood comes from a process of its own, so it does not share this one's event loop
      // with the measuring.
      const flooder = flood
        ? Bun.spawn([process.execPath, import.meta.path, "--flood", ws, service.key, String(flooders), String(reconnectMs)], {
            stdout: "pipe",
            stderr: "inherit",
          })
        : null;
      if (flood) await Bun.sleep(500);

      let polling = true;
      const poller = (async () => {
        while (polling) {
          const started = performance.now();
          await fetch(`${base}/api/v1/mailboxes`, { headers: calmHeaders }).then((response) => response.arrayBuffer());
          result.requests.push(performance.now() - started);
          await Bun.sleep(intervalMs);
        }
      })();

      const committed = new Map<string, number>();
      const order: string[] = [];
      for (let i = 0; i < events; i++) {
        const subject = `${flood ? "flood" : "quiet"}-${i}`;
        const id = newId("evt");
        const messageId = newId("msg");
        const payload = JSON.stringify({ event_id: id, type: "message.received", message_id: messageId, mailbox_id: mailbox.id, subject });
        await sql.begin((tx) => appendEvent(tx, { id, accountId: calm.id, mailboxId: mailbox.id, messageId, payload }));
        committed.set(subject, performance.now());
        order.push(subject);
        await Bun.sleep(intervalMs);
      }
      for (let waited = 0; arrived.length < events && waited < 30_000; waited += 50) await Bun.sleep(50);
      polling = false;
      await poller;
      stream.close();
      if (flooder) {
        flooder.kill("SIGTERM");
        const counts = JSON.parse((await new Response(flooder.stdout).text()).trim().split("\n").at(-1) || "{}");
        result.floodFrames = counts.frames ?? 0;
        result.floodCloses = counts.closes ?? 0;
      }

      const seen = arrived.map((item) => item.subject);
      result.missing = order.filter((subject) => !seen.includes(subject)).length;
      result.outOfOrder = seen.filter((subject, i) => subject !== order[i]).length;
      for (const item of arrived) result.events.push(item.at - committed.get(item.subject)!);
      return result;
    };

    const quiet = await phase(false);
    const flooded = await phase(true);
    const line = (name: string, values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const [p50, p99, max] = [percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.at(-1) ?? NaN];
      return { name, n: sorted.length, p50, p99, max };
    };
    const rows = [
      ["calm key's events, commit → WebSocket frame", quiet.events, flooded.events],
      ["calm key's GET /api/v1/mailboxes", quiet.requests, flooded.requests],
    ] as const;
    console.log(
      `stream-flood: ${events} events every ${intervalMs} ms; flood: ${flooders} WebSockets of one key, reconnecting after ${reconnectMs} ms`,
    );
    for (const [name, a, b] of rows) {
      const [q, f] = [line(name, [...a]), line(name, [...b])];
      const ms = (value: number) => `${value.toFixed(1)} ms`;
      console.log(
        `${name}: quiet p50 ${ms(q.p50)} p99 ${ms(q.p99)} max ${ms(q.max)} (n ${q.n}) | flooded p50 ${ms(f.p50)} p99 ${ms(f.p99)} ` +
          `max ${ms(f.max)} (n ${f.n}) | p99 ratio ${(f.p99 / q.p99).toFixed(2)}`,
      );
    }
    console.log(
      `calm events missing ${quiet.missing} / ${flooded.missing}, out of order ${quiet.outOfOrder} / ${flooded.outOfOrder}; ` +
        `flood frames sent ${flooded.floodFrames}, flood connections ended ${flooded.floodCloses}; RSS ${service.rssMb()} MB`,
    );
  } finally {
    await sql.end();
    await service.stop();
  }
}

/** The flooding client: `flooders` consumer WebSockets of one key sending ack frames as fast as they go, reconnecting when closed. */
async function flood(ws: string, key: string, flooders: number, reconnectMs: number): Promise<void> {
  let flooding = true;
  const counts = { frames: 0, closes: 0 };
  process.on("SIGTERM", () => (flooding = false));
  const one = async () => {
    while (flooding) {
      const socket = new WebSocket(`${ws}?consumer=flood&access_token=${key}`);
      const closed = new Promise<void>((resolve) => socket.addEventListener("close", () => resolve()));
      const opened = await new Promise<boolean>((resolve) => {
        socket.addEventListener("open", () => resolve(true));
        socket.addEventListener("error", () => resolve(false));
      });
      if (opened) {
        const frame = JSON.stringify({ ack: ["0"] });
        while (flooding && socket.readyState === WebSocket.OPEN) {
          for (let i = 0; i < 500 && socket.readyState === WebSocket.OPEN; i++, counts.frames++) socket.send(frame);
          await Bun.sleep(1);
        }
        socket.close();
      }
      await closed;
      counts.closes++;
      if (reconnectMs > 0) await Bun.sleep(reconnectMs);
    }
  };
  await Promise.all(Array.from({ length: flooders }, one));
  console.log(JSON.stringify(counts));
}

if (import.meta.main && process.argv[2] === "--flood") {
  await flood(process.argv[3]!, process.argv[4]!, Number(process.argv[5]), Number(process.argv[6] ?? 0));
  process.exit(0);
}
