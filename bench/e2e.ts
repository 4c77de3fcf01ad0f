// Inbound mail end to end: SMTP at a steady rate into the real service (`src/main.ts` with
// ROLES=smtp,worker, in a child process, against a fresh database), through screening and
// comprehension, to the signed webhook POST at a receiver on loopback. For each rate it reports
// the latency from the 250 reply to DATA to the webhook request arriving (p50, p99, max), and
// at the end the highest rate sustained with p99 under one second.
//
//   bun run bench e2e [--rates 5,10,20,40] [--duration 10] [--log-level info]
//
// spamd and clamd are in the path: SPAMD_ADDRESS / CLAMD_ADDRESS when set, else daemons started
// for the run when Debian's spamd and clamav-daemon are installed (the line on stderr says which).
//
// Open loop: message i of a phase is sent at i/rate seconds whatever happened to the others, over
// a few pooled SMTP connections, as a busy upstream MTA would. Personal-looking text, so no
// message is skipped as spam and comprehension runs fully. Clock: one, this process's.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import nodemailer from "nodemailer";
import { loadConfig } from "../src/config.ts";
import { makeSql } from "../src/db.ts";
import { createAccount } from "../src/core/accounts.ts";
import { createKey } from "../src/core/keys.ts";
import { createMailbox } from "../src/core/mailboxes.ts";
import { setWebhook } from "../src/core/webhooks.ts";
import { makeLogger } from "../src/log.ts";
import { makeResolver } from "../src/mail/resolver.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { scannerAvailable, startClamd, startSpamd, type Scanner } from "../test/support/scanners.ts";
import { apiPrincipal } from "./support/principal.ts";
import { StageLog, stageTable } from "./support/stage-log.ts";

/**
 * SPAMD_ADDRESS / CLAMD_ADDRESS from this environment when set; otherwise, when the Debian
 * packages are installed, a real spamd and clamd started for the run (kept in `daemons` to stop).
 */
async function edgeScanners(daemons: Scanner[]): Promise<{ spamd: string | null; clamd: string | null }> {
  const start = async (name: "spamd" | "clamd", given: string | undefined) => {
    if (given) return given;
    if (!scannerAvailable(name)) return null;
    const daemon = await (name === "spamd" ? startSpamd() : startClamd());
    daemons.push(daemon);
    return daemon.address;
  };
  const [spamd, clamd] = await Promise.all([start("spamd", process.env.SPAMD_ADDRESS), start("clamd", process.env.CLAMD_ADDRESS)]);
  return { spamd, clamd };
}

type Options = { rates: number[]; duration: number; logLevel: string };
type Phase = {
  rate: number;
  sent: number;
  refused: number;
  sendSeconds: number;
  latencies: number[];
  missing: number;
  /** the service process's CPU time (user + system) per message over the phase and its drain */
  cpuMsPerMessage: number;
  /** stored → screened (messages.created_at → processed_at), the share spent before the event exists */
  screened: number[];
  /** messages of earlier phases still not delivered when this one started */
  backlog: number;
  /** per stage, the times the service logged for this phase's messages */
  stages: Map<string, number[]>;
};

const TOTAL_BUDGET_S = 85; // the whole run, set-up and drains included, stays under 90 s
const DRAIN_S = 5; // after a phase's last message; later than that counts as missing
const WARMUP_MESSAGES = 5;
const SLO_MS = 1000;

// Ordinary personal mail: the content classifier passes it, so every message becomes an event.
const BODIES = [
  "Hi Pat,\n\nAre we still on for the hike on Saturday morning? I can drive if you like.\n\nLee",
  "Hi,\n\nHere are the photos from Saturday, hope you like them.\n\nBob",
  "Hi Jo,\n\nThanks for hosting yesterday. Could you send me the notes from the book club when you get a chance?\n\nCheers,\nMaya",
];

function parseOptions(args: string[]): Options {
  const options: Options = { rates: [5, 10, 20, 40], duration: 10, logLevel: "info" };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--rates" && value && /^\d+(,\d+)*$/.test(value))
      options.rates = value
        .split(",")
        .map(Number)
        .filter((r) => r > 0);
    else if (flag === "--duration" && value && /^\d+$/.test(value)) options.duration = Number(value);
    else if (flag === "--log-level" && value) options.logLevel = value;
    else throw new Error(`usage: bun run bench e2e [--rates 5,10,20,40] [--duration S] [--log-level L]; bad argument ${flag}`);
  }
  if (options.rates.length === 0 || options.rates.length * (options.duration + DRAIN_S) > 75) {
    throw new Error("rates × (duration + 5 s drain) must stay within 75 s");
  }
  return options;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

async function smtpReady(port: number, child: ReturnType<typeof Bun.spawn>, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const greeted = await new Promise<boolean>((done) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("data", (chunk: Buffer) => {
        socket.destroy();
        done(chunk.toString().startsWith("220"));
      });
      socket.once("error", () => done(false));
    });
    if (greeted) return;
    if (Date.now() > deadline) throw new Error(`the service did not answer SMTP within ${limitMs} ms`);
    await Bun.sleep(100);
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /, "")
      .split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

/** Nearest-rank percentile; Infinity stands for a message that never arrived. */
function percentile(sorted: number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-e2e-"));
  let child: ReturnType<typeof Bun.spawn> | null = null;
  let receiver: Server | null = null;
  const daemons: Scanner[] = [];
  const stageLog = new StageLog();
  let logRead: Promise<void> = Promise.resolve();
  try {
    // Webhook arrivals by subject: the payload carries it, and each message's subject is unique.
    const accepted = new Map<string, number>();
    const arrived = new Map<string, number>();
    let onArrival = () => {};
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const at = performance.now();
        const subject = String(JSON.parse(Buffer.concat(chunks).toString("utf8")).subject);
        if (!arrived.has(subject)) arrived.set(subject, at); // a retry is not a second arrival
        response.writeHead(200).end("ok");
        onArrival();
      });
    });
    await new Promise<void>((done) => receiver!.listen(0, "127.0.0.1", () => done()));
    const receiverPort = (receiver.address() as net.AddressInfo).port;

    const sql = makeSql(database.url, { max: 2 });
    const loadBefore = loadAverage();
    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent" });
    const account = await createAccount(sql, { name: "bench" });
    const { key } = await createKey(sql, { accountId: account.id, scope: "api" });
    const principal = apiPrincipal(key.id, account.id);
    const mailbox = await createMailbox({ sql, config, log: makeLogger("silent") } as never, principal, { slug: "bench-e2e" });
    // The receiver is on loopback: the service under test runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true too.
    const webhookSetter = {
      sql,
      resolve: makeResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
      config: { webhook: { allowPrivateNetworks: true } },
    };
    await setWebhook(webhookSetter, {
      accountId: account.id,
      url: `http://127.0.0.1:${receiverPort}/hooks/mail`,
      secret: "whsec_bench_e2e_0123456789abcdef",
    });

    const smtpPort = await freePort();
    const scanners = await edgeScanners(daemons);
    console.error(`edge scanners: spamd ${scanners.spamd ?? "none"}, clamd ${scanners.clamd ?? "none"}`);
    child = Bun.spawn([process.execPath, "src/main.ts"], {
      cwd: resolve(import.meta.dir, ".."),
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        DATABASE_URL: database.url,
        ROLES: "smtp,worker",
        SMTP_PORT: String(smtpPort),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        LOG_LEVEL: options.logLevel,
        // Loopback senders have no SPF/DKIM to check, and the bench must not query the internet.
        INBOUND_AUTH_MODE: "off",
        // The receiver is on loopback, which production refuses.
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
        // The edge scanners the README recommends, in the path as in production: the ones given
        // in this environment, or else a real spamd and clamd started here (test/support/scanners.ts).
        ...(scanners.spamd ? { SPAMD_ADDRESS: scanners.spamd } : {}),
        ...(scanners.clamd ? { CLAMD_ADDRESS: scanners.clamd } : {}),
      },
      // The service's JSON log, written as in production: read for the per-stage table, not kept.
      stdout: "pipe",
      stderr: "inherit",
    });
    logRead = stageLog.consume(child.stdout as ReadableStream<Uint8Array>).catch(() => {});
    await smtpReady(smtpPort, child, 20_000);

    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtpPort,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 8,
      maxMessages: Infinity,
      name: "bench.client.test",
    });

    let counter = 0;
    const sendOne = async (tag: string): Promise<boolean> => {
      const n = ++counter;
      const subject = `${tag} message ${n}`;
      try {
        await transport.sendMail({ from: "friend@example.org", to: mailbox.address, subject, text: BODIES[n % BODIES.length] });
        accepted.set(subject, performance.now()); // the 250 reply to DATA has just been read
        return true;
      } catch {
        return false;
      }
    };
    const waitForArrivals = async (subjects: () => string[], limitS: number) => {
      const deadline = performance.now() + limitS * 1000;
      while (performance.now() < deadline && subjects().some((s) => !arrived.has(s))) {
        await new Promise<void>((wake) => {
          onArrival = wake;
          setTimeout(wake, 50);
        });
      }
    };

    // Warm-up: the first messages load the spam model and fill the pools; not measured.
    await Promise.all(Array.from({ length: WARMUP_MESSAGES }, () => sendOne("warmup")));
    await waitForArrivals(() => [...accepted.keys()].filter((s) => s.startsWith("warmup")), 20);

    const phases: Phase[] = [];
    for (const rate of options.rates) {
      if (elapsed() + options.duration + DRAIN_S > TOTAL_BUDGET_S) {
        console.error(`skipping ${rate} msgs/s and above: the run would exceed ${TOTAL_BUDGET_S} s`);
        break;
      }
      const tag = `rate ${rate}`;
      const total = rate * options.duration;
      const sends: Promise<boolean>[] = [];
      const backlog = [...accepted.keys()].filter((s) => !arrived.has(s)).length;
      const cpuStart = cpuSeconds(child.pid);
      const phaseStart = performance.now();
      for (let i = 0; i < total; i++) {
        const due = phaseStart + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        sends.push(sendOne(tag));
      }
      const results = await Promise.all(sends);
      const sendSeconds = (performance.now() - phaseStart) / 1000;
      const mine = () => [...accepted.keys()].filter((s) => s.startsWith(`${tag} `));
      await waitForArrivals(mine, DRAIN_S);
      const cpu = cpuSeconds(child.pid) - cpuStart;
      const latencies = mine()
        .map((s) => (arrived.has(s) ? arrived.get(s)! - accepted.get(s)! : Infinity))
        .sort((a, b) => a - b);
      const rows = await sql<{ id: string; ms: number | null }[]>`
        select id, extract(epoch from processed_at - created_at)::float8 * 1000 as ms from messages
        where subject like ${`${tag} message %`}`;
      const screened = rows
        .filter((row) => row.ms !== null)
        .map((row) => row.ms!)
        .sort((a, b) => a - b);
      phases.push({
        rate,
        sent: total,
        refused: results.filter((ok) => !ok).length,
        sendSeconds,
        latencies,
        missing: latencies.filter((l) => l === Infinity).length,
        cpuMsPerMessage: (cpu * 1000) / total,
        screened,
        backlog,
        stages: stageLog.over(rows.map((row) => row.id)),
      });
    }
    transport.close();
    await sql.end();

    const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : "lost");
    const passes = (phase: Phase) => phase.refused === 0 && phase.missing === 0 && percentile(phase.latencies, 0.99) < SLO_MS;
    // The highest rate that met the target. Rates below it that missed are listed too: on a shared
    // machine a load spike from another process can sink one phase and not the next.
    const met = phases.filter(passes);
    const sustained = met.length === 0 ? null : Math.max(...met.map((p) => p.rate));
    const missedBelow = phases.filter((p) => !passes(p) && sustained !== null && p.rate < sustained).map((p) => p.rate);
    const lines = [
      "",
      `Inbound SMTP → screening + comprehension → signed webhook POST, loopback; src/main.ts ROLES=smtp,worker in a child process; ` +
        `${options.duration} s per rate, open loop, 8 pooled SMTP connections; latency from the 250 reply to DATA to the webhook request's arrival`,
      "",
      `${"target/s".padStart(9)}${"achieved/s".padStart(12)}${"sent".padStart(7)}${"refused".padStart(9)}${"arrived".padStart(9)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"max ms".padStart(9)}` +
        `${"p99<1s".padStart(8)}${"screened p50/p99 ms".padStart(21)}${"cpu ms/msg".padStart(12)}${"backlog".padStart(9)}`,
      ...phases.map((p) => {
        const arrivedCount = p.latencies.length - p.missing;
        return (
          `${String(p.rate).padStart(9)}${(p.sent / p.sendSeconds).toFixed(1).padStart(12)}${String(p.sent).padStart(7)}${String(p.refused).padStart(9)}` +
          `${String(arrivedCount).padStart(9)}${ms(percentile(p.latencies, 0.5)).padStart(9)}${ms(percentile(p.latencies, 0.99)).padStart(9)}` +
          `${ms(p.latencies[p.latencies.length - 1] ?? NaN).padStart(9)}${(passes(p) ? "yes" : "no").padStart(8)}` +
          `${`${ms(percentile(p.screened, 0.5))}/${ms(percentile(p.screened, 0.99))}`.padStart(21)}${p.cpuMsPerMessage.toFixed(1).padStart(12)}` +
          `${String(p.backlog).padStart(9)}`
        );
      }),
      "",
      sustained === null
        ? "highest sustained rate with p99 under 1 s: none of the rates tried"
        : `highest sustained rate with p99 under 1 s: ${sustained} msgs/s` +
          (sustained === Math.max(...phases.map((p) => p.rate)) ? " (the highest rate tried: the limit is higher)" : "") +
          (missedBelow.length ? `; missed at ${missedBelow.join(", ")} msgs/s in this run` : ""),
      `"screened": stored → screened (messages.created_at → processed_at, database clock); "cpu ms/msg": the service process's CPU time per message; ` +
        `"backlog": earlier messages still undelivered when the rate started ("lost" = not arrived within ${DRAIN_S} s of the phase's end)`,
      "Where the time goes, per stage, from the service's own log lines (wall clock; a stage's time includes waiting for the event loop):",
      "",
      ...stageTable(phases.map((p) => ({ rate: p.rate, stages: p.stages }))),
      "",
      `load average before ${loadBefore}, after ${loadAverage()} (${navigator.hardwareConcurrency} CPUs); total time ${elapsed().toFixed(1)} s`,
      "",
    ];
    console.log(lines.join("\n"));
  } finally {
    if (child) {
      child.kill("SIGTERM");
      const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(5_000).then(() => false)]);
      if (!exited) child.kill("SIGKILL");
      await child.exited;
      await logRead;
    }
    for (const daemon of daemons) await daemon.close();
    if (receiver) {
      receiver.closeAllConnections();
      await new Promise<void>((done) => receiver!.close(() => done()));
    }
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
