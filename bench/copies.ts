// `npm run bench -- copies [--messages N] [--no-pin]`: how throughput scales with copies of a role,
// in one run against one fresh database, each role its own `bun src/main.ts` process:
//   SMTP ingest (250s per second) with one listener, then with two (load spread over both);
//   inbound → webhook (a backlog of screened-and-delivered per second) with one worker, then two.
// Each copy is pinned to a core of its own with `taskset` (the first copy of a role to core 0,
// the second to core 1; `--no-pin` or a machine without two cores or taskset: not pinned), so
// that two copies cannot share one core while a third is idle. Reported per role, for one copy
// and for two: messages per second, and the role's own CPU time per message (its processes'
// user + system, from /proc; its PostgreSQL backends are not counted), so messages per second per
// core; and the database connections each copy holds. Closed loop over a fixed count; loopback only.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { loadConfig } from "../src/config.ts";
import { createAccount } from "../src/core/accounts/accounts.ts";
import { createKey } from "../src/core/accounts/keys.ts";
import { randomBase32 } from "../src/core/ids.ts";
import { createMailbox } from "../src/core/mailboxes.ts";
import { setWebhook } from "../src/core/webhooks/endpoint.ts";
import { makeSql, type Sql } from "../src/db.ts";
import { makeLogger } from "../src/log.ts";
import { makeResolver } from "../src/mail/resolver.ts";
import { freePort } from "../test/support/smtp-client.ts";
import { openChaosDatabase } from "./chaos/database.ts";
import { chaosMessage } from "./chaos/load.ts";
import { type ChaosReceiver, startChaosReceiver } from "./chaos/receiver.ts";
import { type ServiceProcess, startService } from "./chaos/service.ts";
import { apiPrincipal } from "./support/principal.ts";

/** CPU seconds (user + system) a process has used, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function connections(sql: Sql): Promise<number> {
  const [row] = await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  return row!.n;
}

/** Sends `count` messages over the ports and mailboxes (round robin, 8 pooled connections per port); returns seconds. */
async function ingest(ports: number[], mailboxes: string[], runId: string, count: number): Promise<number> {
  const transports = ports.map((port) =>
    nodemailer.createTransport({
      host: "127.0.0.1",
      port,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 8,
      maxMessages: Infinity,
      name: "bench.client.test",
    }),
  );
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, (_, n) => {
      const to = mailboxes[n % mailboxes.length]!;
      return transports[n % transports.length]!.sendMail({
        envelope: { from: "lee@example.org", to: [to] },
        raw: chaosMessage(runId, n, to),
      });
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const transport of transports) transport.close();
  return seconds;
}

async function waitForArrivals(receiver: ChaosReceiver, count: number, limitMs = 600_000): Promise<void> {
  const until = performance.now() + limitMs;
  while (receiver.arrivals.size < count) {
    if (performance.now() > until) throw new Error(`only ${receiver.arrivals.size} of ${count} webhooks arrived`);
    await Bun.sleep(20);
  }
}

const ACCOUNTS = 8;

export default async function copiesBench(args: string[]): Promise<void> {
  const at = args.indexOf("--messages");
  const count = at >= 0 ? Number(args[at + 1]) : 300;
  if (!Number.isInteger(count) || count < 10 || count > 5000) throw new Error("--messages must be 10..5000");
  const pinned = !args.includes("--no-pin") && availableParallelism() >= 2 && existsSync("/usr/bin/taskset");
  const core = (copy: 0 | 1) => (pinned ? { cpu: copy } : {});
  const loadAtStart = loadavg();
  const runDir = mkdtempSync(join(tmpdir(), "bench-copies-"));
  const db = await openChaosDatabase();
  const sql = makeSql(db.url, { max: 2 });
  const receiver = await startChaosReceiver();
  const processes: ServiceProcess[] = [];
  try {
    const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: "silent", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
    // Mail for several accounts, as a service carries: one account's events are appended in
    // order under a per-account lock, so a single account would measure that lock, not the copies.
    const mailboxes: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const account = await createAccount(sql, { name: `bench copies ${i}` });
      const { key } = await createKey(sql, { accountId: account.id, scope: "api" });
      const principal = apiPrincipal(key.id, account.id);
      const mailbox = await createMailbox({ sql, config, log: makeLogger("silent") } as never, principal, { slug: `bench-copies-${i}` });
      await setWebhook(
        { sql, resolve: makeResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }), config },
        { accountId: account.id, url: receiver.url, secret: "whsec_bench_copies_0123456789abcdef" },
      );
      mailboxes.push(mailbox.address);
    }
    const env = {
      DATABASE_URL: db.url,
      HOST: "127.0.0.1",
      DATA_DIR: runDir,
      LOG_LEVEL: "info",
      INBOUND_AUTH_MODE: "off",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      HTTP_PORT: "0",
    };
    const start = async (name: string, extra: Record<string, string>, copy: 0 | 1) => {
      const child = await startService(name, { ...env, ...extra }, runDir, core(copy));
      processes.push(child);
      return child;
    };
    const ports = [await freePort(), await freePort()];
    const smtp = [
      await start("smtp-a", { ROLES: "smtp", SMTP_PORT: String(ports[0]) }, 0),
      await start("smtp-b", { ROLES: "smtp", SMTP_PORT: String(ports[1]) }, 1),
    ];
    const run = randomBase32(4).toLowerCase();

    // Warm-up (first connections, JIT), not counted.
    await ingest(ports, mailboxes, `${run}w`, 40);
    const smtpCpu = () => smtp.reduce((sum, p) => sum + cpuSeconds(p.pid), 0);
    let cpu0 = smtpCpu();
    const oneListener = count / (await ingest([ports[0]!], mailboxes, `${run}a`, count));
    const smtpOneCpuMs = ((smtpCpu() - cpu0) * 1000) / count;
    cpu0 = smtpCpu();
    const twoListeners = count / (await ingest(ports, mailboxes, `${run}b`, count));
    const smtpTwoCpuMs = ((smtpCpu() - cpu0) * 1000) / count;
    const smtpConnections = (await connections(sql)) / 2;

    // Backlog of 2·count + 40 process_inbound jobs; one worker drains it.
    let backlog = 2 * count + 40;
    const w1 = await start("worker-1", { ROLES: "worker" }, 0);
    const w1Started = performance.now();
    const w1Cpu0 = cpuSeconds(w1.pid);
    await waitForArrivals(receiver, backlog);
    const oneWorker = backlog / ((performance.now() - w1Started) / 1000);
    const workerOneCpuMs = ((cpuSeconds(w1.pid) - w1Cpu0) * 1000) / backlog;
    const workerConnections = (await connections(sql)) - 2 * smtpConnections;
    await w1.kill("SIGTERM");

    // The same backlog again, through both listeners, then two workers drain it.
    await ingest(ports, mailboxes, `${run}c`, count);
    await ingest(ports, mailboxes, `${run}d`, count);
    const before = receiver.arrivals.size;
    backlog = 2 * count;
    const pair = await Promise.all([start("worker-2a", { ROLES: "worker" }, 0), start("worker-2b", { ROLES: "worker" }, 1)]);
    const w2Started = performance.now();
    const w2Cpu0 = pair.map((p) => cpuSeconds(p.pid));
    await waitForArrivals(receiver, before + backlog);
    const twoWorkers = backlog / ((performance.now() - w2Started) / 1000);
    const workerTwoCpuMs = (pair.reduce((sum, p, i) => sum + cpuSeconds(p.pid) - w2Cpu0[i]!, 0) * 1000) / backlog;
    for (const p of pair) await p.kill("SIGTERM");

    const f = (n: number) => n.toFixed(1);
    const f2 = (n: number) => n.toFixed(2);
    console.log(
      [
        `bench copies: ${count} messages per phase over ${ACCOUNTS} accounts, one database, loopback (WORKER_CONCURRENCY default 4); ${pinned ? "copies pinned: first to core 0, second to core 1 (taskset)" : "copies not pinned"}; load average ${loadAtStart.map((l) => l.toFixed(2)).join(" ")} at the start, ${loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")} at the end`,
        `  SMTP ingest:      1 listener ${f(oneListener)} msg/s, 2 listeners ${f(twoListeners)} msg/s, ratio ${(twoListeners / oneListener).toFixed(2)}`,
        `  inbound→webhook:  1 worker ${f(oneWorker)} msg/s, 2 workers ${f(twoWorkers)} msg/s, ratio ${(twoWorkers / oneWorker).toFixed(2)}`,
        `  CPU per message, smtp role:   1 copy ${f2(smtpOneCpuMs)} ms (${f(1000 / smtpOneCpuMs)} msg/s per core), 2 copies ${f2(smtpTwoCpuMs)} ms (${f(1000 / smtpTwoCpuMs)} msg/s per core), ratio ${(smtpTwoCpuMs / smtpOneCpuMs).toFixed(2)}`,
        `  CPU per message, worker role: 1 copy ${f2(workerOneCpuMs)} ms (${f(1000 / workerOneCpuMs)} msg/s per core), 2 copies ${f2(workerTwoCpuMs)} ms (${f(1000 / workerTwoCpuMs)} msg/s per core), ratio ${(workerTwoCpuMs / workerOneCpuMs).toFixed(2)}`,
        `  DB connections:   ${f(smtpConnections)} per smtp copy, ${f(workerConnections)} per worker copy (server side, under this load)`,
      ].join("\n"),
    );
  } finally {
    for (const child of processes) await child.kill("SIGKILL");
    await receiver.close();
    await sql.end({ timeout: 2 });
    await db.close();
    rmSync(runDir, { recursive: true, force: true });
  }
}
