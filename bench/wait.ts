// Latency from SMTP 250 to the answer of a waiting GET /api/v1/messages/wait: the real service
// (`src/main.ts`, every role in one process) against a fresh database. For each message a waiter
// long-polls for its subject, the message is sent over SMTP, and the time from the 250 reply to
// DATA to the waiter's answer is measured (screening and comprehension included: the wait answers
// with the extracted code). One waiter at a time.
//
//   bun run bench wait [--messages 50]
import nodemailer from "nodemailer";
import { percentile, startBenchService } from "./stream-service.ts";

export default async function run(args: string[]): Promise<void> {
  let messages = 50;
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === "--messages" && /^\d+$/.test(args[i + 1] ?? "")) messages = Number(args[i + 1]);
    else throw new Error("usage: bun run bench wait [--messages N]");
  }
  const service = await startBenchService({});
  try {
    const base = `http://127.0.0.1:${service.httpPort}`;
    const auth = { authorization: `Bearer ${service.key}`, "content-type": "application/json" };
    const mailbox = (await (
      await fetch(`${base}/api/v1/mailboxes`, { method: "POST", headers: auth, body: JSON.stringify({ slug: "waiting" }) })
    ).json()) as { id: string; address: string };
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: service.smtpPort,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 1,
    });
    const latencies: number[] = [];
    let wrongCode = 0;
    for (let i = 0; i < messages; i++) {
      const subject = `Your sign-in code ${i}`;
      const code = String(100000 + Math.floor(Math.random() * 899999));
      const query = new URLSearchParams({ mailbox_id: mailbox.id, subject_contains: subject, from: "example.org", timeout_s: "30" });
      const waiting = fetch(`${base}/api/v1/messages/wait?${query}`, { headers: auth }).then(async (response) => ({
        at: performance.now(),
        body: (await response.json()) as { status: string; message?: { subject: string; verification_codes: string[] } },
      }));
      await Bun.sleep(50); // the waiter is listening before the mail is sent
      await transport.sendMail({ from: "no-reply@example.org", to: mailbox.address, subject, text: `Your code is ${code}.` });
      const accepted = performance.now(); // sendMail resolves on the 250 to DATA
      const answer = await waiting;
      if (answer.body.status !== "found" || answer.body.message?.subject !== subject) {
        latencies.push(Infinity);
        continue;
      }
      if (!answer.body.message.verification_codes.includes(code)) wrongCode++;
      latencies.push(answer.at - accepted);
    }
    transport.close();
    latencies.sort((a, b) => a - b);
    const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : "missing");
    console.log(`SMTP 250 → answer of a waiting GET /api/v1/messages/wait, ${messages} messages one at a time (every role in one process)`);
    console.log(
      `  p50 ${ms(percentile(latencies, 0.5))}  p99 ${ms(percentile(latencies, 0.99))}  max ${ms(latencies.at(-1)!)}  ` +
        `missing ${latencies.filter((v) => !Number.isFinite(v)).length}  code not extracted ${wrongCode}`,
    );
  } finally {
    await service.stop();
  }
}
