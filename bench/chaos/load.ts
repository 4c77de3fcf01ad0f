// SMTP load as a patient upstream MTA sends it: message i is due at i/rate seconds, over a few
// pooled connections, and a message without a 250 (refused connection, dropped session, 4xx) is
// sent again, the same bytes, until it gets one or the run gives up. A message whose 250 was
// committed but never read is therefore sent twice: what the listener's de-duplication is for.
import nodemailer from "nodemailer";

export type Sent = { n: number; subject: string; firstSentAt: number; ackedAt: number | null; attempts: number; refused: boolean };

export type Load = {
  messages: Sent[];
  /** Resolves when every message has a 250, was refused with a 5xx, or the give-up time passed. */
  done: Promise<void>;
};

const BODIES = [
  "Hi Pat,\n\nAre we still on for the hike on Saturday morning? I can drive if you like.\n\nLee",
  "Hi,\n\nHere are the photos from Saturday, hope you like them.\n\nBob",
  "Hi Jo,\n\nThanks for hosting yesterday. Could you send me the notes from the book club when you get a chance?\n\nCheers,\nMaya",
];

/** The raw message n: fixed bytes, so every resend is byte for byte the same. */
export function chaosMessage(runId: string, n: number, to: string): string {
  return [
    "From: Lee Friend <lee@example.org>",
    `To: ${to}`,
    `Subject: chaos ${runId} ${n}`,
    `Message-ID: <chaos-${runId}-${n}@example.org>`,
    "Date: Tue, 24 Nov 2026 10:00:00 +0000",
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    BODIES[n % BODIES.length]!.replaceAll("\n", "\r\n"),
    "",
  ].join("\r\n");
}

/**
 * `ports`: several listeners (copies of the smtp role), as an MTA sees several MX hosts: message n
 * goes first to ports[n % length], and each retry to the next one.
 */
export function startLoad(options: {
  port: number;
  ports?: number[];
  to: string;
  runId: string;
  count: number;
  rate: number;
  connections: number;
  giveUpMs: number;
}): Load {
  const ports = options.ports ?? [options.port];
  const transports = ports.map((port) => makeTransport(port, Math.max(1, Math.round(options.connections / ports.length))));
  const start = performance.now();
  const giveUpAt = start + options.giveUpMs;
  const messages: Sent[] = [];

  const deliver = async (sent: Sent) => {
    const raw = chaosMessage(options.runId, sent.n, options.to);
    for (;;) {
      const transport = transports[(sent.n + sent.attempts) % transports.length]!;
      sent.attempts++;
      try {
        await transport.sendMail({ envelope: { from: "lee@example.org", to: [options.to] }, raw });
        sent.ackedAt = performance.now();
        return;
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode;
        if (code !== undefined && code >= 500) {
          sent.refused = true;
          return;
        }
        if (performance.now() > giveUpAt) return;
        // As an MTA's queue would, a little later; the service may be restarting.
        await Bun.sleep(250 + Math.random() * 250);
      }
    }
  };

  const done = (async () => {
    const sends: Promise<void>[] = [];
    for (let n = 0; n < options.count; n++) {
      const due = start + (n * 1000) / options.rate;
      const wait = due - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      const sent: Sent = {
        n,
        subject: `chaos ${options.runId} ${n}`,
        firstSentAt: performance.now(),
        ackedAt: null,
        attempts: 0,
        refused: false,
      };
      messages.push(sent);
      sends.push(deliver(sent));
    }
    await Promise.all(sends);
    for (const transport of transports) transport.close();
  })();
  return { messages, done };
}

function makeTransport(port: number, connections: number) {
  return nodemailer.createTransport({
    host: "127.0.0.1",
    port,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: connections,
    maxMessages: Infinity,
    name: "chaos.client.test",
    connectionTimeout: 5_000,
    greetingTimeout: 5_000,
    socketTimeout: 20_000,
  });
}
