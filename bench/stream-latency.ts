// Latency from SMTP 250 to the event on an open stream: the real service (`src/main.ts`, every
// role in one process) against a fresh database; one SSE stream open; messages sent one at a time
// over SMTP at a steady pace; for each, the time from the 250 reply to DATA to its event arriving
// on the stream (screening and comprehension included, as a webhook would see it).
//
//   npm run bench -- stream-latency [--messages 100] [--interval-ms 100]
import nodemailer from "nodemailer";
import { percentile, startBenchService } from "./stream-service.ts";

export default async function run(args: string[]): Promise<void> {
  let messages = 100;
  let intervalMs = 100;
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === "--messages" && /^\d+$/.test(args[i + 1] ?? "")) messages = Number(args[i + 1]);
    else if (args[i] === "--interval-ms" && /^\d+$/.test(args[i + 1] ?? "")) intervalMs = Number(args[i + 1]);
    else throw new Error("usage: npm run bench -- stream-latency [--messages N] [--interval-ms MS]");
  }
  const service = await startBenchService({});
  try {
    const base = `http://127.0.0.1:${service.httpPort}`;
    const auth = { authorization: `Bearer ${service.key}`, "content-type": "application/json" };
    const mailbox = (await (
      await fetch(`${base}/api/v1/mailboxes`, { method: "POST", headers: auth, body: JSON.stringify({ slug: "latency" }) })
    ).json()) as { address: string };

    const arrived = new Map<string, number>();
    const abort = new AbortController();
    const response = await fetch(`${base}/api/v1/events/stream`, {
      headers: { authorization: `Bearer ${service.key}` },
      signal: abort.signal,
    });
    const reading = (async () => {
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let split: number;
        while ((split = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          const data = block.split("\n").find((line) => line.startsWith("data: "));
          if (data) arrived.set(JSON.parse(data.slice(6)).subject, performance.now());
        }
      }
    })();

    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: service.smtpPort,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 1,
    });
    const accepted = new Map<string, number>();
    const bodies = [
      "Hi Pat,\n\nAre we still on for Saturday? I can drive.\n\nLee",
      "Hi,\n\nThanks for yesterday, the notes are attached below.\n\nMaya",
    ];
    for (let i = 0; i < messages; i++) {
      const subject = `latency ${i}`;
      await transport.sendMail({ from: "lee@example.org", to: mailbox.address, subject, text: bodies[i % 2] });
      accepted.set(subject, performance.now()); // sendMail resolves on the 250 to DATA
      await Bun.sleep(intervalMs);
    }
    const deadline = performance.now() + 10_000;
    while (arrived.size < messages && performance.now() < deadline) await Bun.sleep(50);
    transport.close();
    abort.abort();
    await reading;

    const latencies = [...accepted].map(([subject, at]) => (arrived.get(subject) ?? Infinity) - at).sort((a, b) => a - b);
    const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : "missing");
    console.log(
      `SMTP 250 → event on an open SSE stream, ${messages} messages, one every ${intervalMs} ms (every role in one process, ${navigatorCores()} cores)`,
    );
    console.log(
      `  p50 ${ms(percentile(latencies, 0.5))}  p99 ${ms(percentile(latencies, 0.99))}  max ${ms(latencies.at(-1)!)}  missing ${latencies.filter((v) => !Number.isFinite(v)).length}`,
    );
  } finally {
    await service.stop();
  }
}

function navigatorCores(): number {
  return (globalThis.navigator as { hardwareConcurrency?: number } | undefined)?.hardwareConcurrency ?? 0;
}
