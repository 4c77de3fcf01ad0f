// One chaos run: a database, an account with a mailbox and a webhook to a loopback receiver, the
// service processes a scenario starts, SMTP load, the scenario's faults, then a drain until every
// acknowledged message reached the receiver (or the drain limit), and the tally.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createAccount } from "../../src/core/accounts/accounts.ts";
import { createKey } from "../../src/core/accounts/keys.ts";
import { randomBase32 } from "../../src/core/ids.ts";
import { createMailbox } from "../../src/core/mailboxes.ts";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { makeSql, type Sql } from "../../src/db.ts";
import { makeLogger } from "../../src/log.ts";
import { makeResolver } from "../../src/mail/resolver.ts";
import { apiPrincipal } from "../support/principal.ts";
import { type ChaosDatabase, openChaosDatabase } from "./database.ts";
import { type Load, startLoad } from "./load.ts";
import { type ChaosReceiver, startChaosReceiver } from "./receiver.ts";
import { type ServiceProcess, startService } from "./service.ts";
import { type Summary, summaryLine, tally } from "./tally.ts";

export type ChaosOptions = {
  messages: number;
  rate: number;
  /** Shrunk recovery and webhook timings, for the regression test in `npm test`. */
  fast: boolean;
  /** How long after the load ends the run waits for the last webhook. */
  drainMs: number;
};

export type Run = {
  db: ChaosDatabase;
  sql: Sql;
  receiver: ChaosReceiver;
  smtpPort: number;
  /** The settings every service process gets; a scenario adds ROLES and its own. */
  env: Record<string, string>;
  start(name: string, env?: Record<string, string>): Promise<ServiceProcess>;
  /** The run's account: its API key and the mailbox the load writes to. */
  account: { id: string; apiKey: string; mailboxId: string; mailboxAddress: string };
  freePort(): Promise<number>;
  /** Starts the load (on `ports`, default the one SMTP port); `at(f)` then waits until fraction f of its nominal sending time has passed. */
  load(ports?: number[]): Load;
  /** Records a failed check: the run fails, with this reason in its summary. */
  fail(reason: string): void;
  at(fraction: number): Promise<void>;
  notes: string[];
};

export type Scenario = { receiverDelayMs?: number; run(run: Run, options: ChaosOptions): Promise<void> };

const FAST_ENV = {
  WORKER_SWEEP_INTERVAL_MS: "500",
  WORKER_DEAD_AFTER_MS: "2000",
  WEBHOOK_TIMEOUT_MS: "2000",
  WEBHOOK_LEASE_GRACE_MS: "1000",
  WEBHOOK_RETRY_SCHEDULE: "0.5,1,1,2,2",
  // A send cut by a kill is taken over after 3 s (no final dot) or answered unknown 8 s after its dot.
  RECONCILE_GRACE_S: "3",
  DELIVERY_TIMEOUT_MS: "3000",
};

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

export async function runChaos(name: string, scenario: Scenario, options: ChaosOptions): Promise<Summary> {
  const runId = randomBase32(6).toLowerCase();
  const runDir = mkdtempSync(join(tmpdir(), `chaos-${name}-`));
  const db = await openChaosDatabase();
  const sql = makeSql(db.url, { max: 2 });
  const receiver = await startChaosReceiver({ delayMs: scenario.receiverDelayMs }).catch(async (error) => {
    await sql.end({ timeout: 2 });
    await db.close();
    throw error;
  });
  const processes: ServiceProcess[] = [];
  let keepLogs = false;
  try {
    const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: "silent", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
    const account = await createAccount(sql, { name: "chaos" });
    const { key, secret } = await createKey(sql, { accountId: account.id, scope: "api" });
    const principal = apiPrincipal(key.id, account.id);
    const mailbox = await createMailbox({ sql, config, log: makeLogger("silent") } as never, principal, { slug: `chaos-${runId}` });
    // The receiver is on loopback: the service processes get WEBHOOK_ALLOW_PRIVATE_NETWORKS too.
    const resolve = makeResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
    await setWebhook({ sql, resolve, config }, { accountId: account.id, url: receiver.url, secret: "whsec_chaos_run_0123456789abcdef" });

    const smtpPort = await freePort();
    const env: Record<string, string> = {
      DATABASE_URL: db.url,
      HOST: "127.0.0.1",
      SMTP_PORT: String(smtpPort),
      HTTP_PORT: String(await freePort()),
      DATA_DIR: runDir,
      LOG_LEVEL: "info",
      // Loopback senders have nothing to verify, and the run must not query the internet.
      INBOUND_AUTH_MODE: "off",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      ...(options.fast ? FAST_ENV : {}),
    };
    let loadStart = 0;
    const sendingMs = (options.messages * 1000) / options.rate;
    let load: Load | null = null;
    const notes: string[] = [];
    const failed: string[] = [];
    const run: Run = {
      account: { id: account.id, apiKey: secret, mailboxId: mailbox.id, mailboxAddress: mailbox.address },
      freePort,
      fail: (reason) => void failed.push(reason),
      db,
      sql,
      receiver,
      smtpPort,
      env,
      notes,
      async start(processName, extra = {}) {
        const started = await startService(processName, { ...env, ...extra }, runDir);
        processes.push(started);
        return started;
      },
      load(ports) {
        loadStart = performance.now();
        load = startLoad({
          port: smtpPort,
          ports,
          to: mailbox.address,
          runId,
          count: options.messages,
          rate: options.rate,
          connections: 8,
          giveUpMs: sendingMs + 60_000,
        });
        return load;
      },
      async at(fraction) {
        const wait = loadStart + fraction * sendingMs - performance.now();
        if (wait > 0) await Bun.sleep(wait);
      },
    };
    await scenario.run(run, options);
    if (!load) throw new Error(`scenario ${name} started no load`);
    const finished: Load = load;
    await finished.done;
    const drainUntil = performance.now() + options.drainMs;
    const waiting = () => finished.messages.filter((m) => m.ackedAt !== null && !receiver.arrivals.has(m.subject));
    while (waiting().length > 0 && performance.now() < drainUntil) await Bun.sleep(100);
    // A little longer, so a late duplicate request would be counted too.
    await Bun.sleep(options.fast ? 1000 : 3000);
    notes.push(...serviceLogFacts(runDir));
    const summary = await tally(name, sql, runId, finished.messages, receiver.arrivals, notes);
    summary.failed = failed;
    keepLogs = summary.lost > 0 || summary.duplicated > 0 || summary.acknowledged < summary.sent || failed.length > 0;
    if (summary.lost > 0) summary.notes.push(await jobsLeft(sql));
    if (keepLogs) summary.notes.push(`service logs kept in ${runDir}`);
    return summary;
  } catch (error) {
    keepLogs = true;
    throw new Error(`chaos ${name} failed (service logs in ${runDir}): ${(error as Error).message}`);
  } finally {
    for (const child of processes) await child.kill("SIGKILL");
    await receiver.close();
    await sql.end({ timeout: 2 });
    await db.close();
    if (!keepLogs) rmSync(runDir, { recursive: true, force: true });
  }
}

/** Where the work of the undelivered messages is stuck, for the note of a failed run. */
async function jobsLeft(sql: Sql): Promise<string> {
  const rows = await sql`
    select t.identifier as task, j.locked_by, j.attempts, j.max_attempts, j.run_at > now() as later, left(j.last_error, 80) as error,
      (select count(*) from worker_pools p where p.id = j.locked_by)::int as pool_registered
    from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id`;
  return `jobs left: ${JSON.stringify(rows)}`;
}

/** What the services' own logs say about recovery: copies not stored again, dead pools freed. */
function serviceLogFacts(runDir: string): string[] {
  let copies = 0;
  let freedJobs = 0;
  let orphans = 0;
  for (const file of readdirSync(runDir).filter((name) => name.endsWith(".log"))) {
    for (const line of readFileSync(join(runDir, file), "utf8").split("\n")) {
      if (line.includes('"inbound.accepted"')) copies += Number(/"copies_of_earlier":(\d+)/.exec(line)?.[1] ?? 0);
      if (line.includes('"worker.own_orphans_freed"'))
        orphans += (/"job_ids":\[([^\]]*)\]/.exec(line)?.[1] ?? "").split(",").filter(Boolean).length;
      if (line.includes('"worker.dead_pools_freed"'))
        freedJobs += (/"jobs":\[([^\]]*)\]/.exec(line)?.[1] ?? "").split(",").filter(Boolean).length;
    }
  }
  return [
    `${copies} copies of stored messages not stored again`,
    `${freedJobs} jobs of dead workers freed by the sweeper`,
    `${orphans} jobs whose result was lost freed by their own worker`,
  ];
}

export { summaryLine };
