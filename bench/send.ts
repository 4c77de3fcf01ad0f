// POST /api/v1/send through the whole pipeline (HTTP, auth, checks, compose, DKIM, the smtp
// transport to a loopback SMTP sink, outcome recorded) against the bare cost of the SQL writes a
// send makes, run with no HTTP, no compose and no SMTP. Both are driven by the same bounded loop:
// N workers issuing one operation after another for a fixed time. Two baselines:
//  - "bare SQL now": every write a send makes, in its order, through the service's own functions
//    on a pool of the API's size, with the same durability (synchronous commit): the record
//    statement (token, message, reconcile job, quota), the final-dot mark (its own commit, made
//    before the message's last byte goes out), and the outcome transaction (the sent row, the
//    job's removal, the message.sent event with its NOTIFY). Not in it: the send's reads (the
//    mailbox, the send lists and suppressions), which are not writes.
//  - "bare SQL before": the writes as a send made them before 2026-11-25 (the quota upsert, a
//    transaction of token, message and job, an outcome transaction without an event), which
//    earlier figures were measured against.
// The targets are measured in turn, --rounds times (duration/rounds each, the order rotated each
// round, warmed up once before the first): on a shared machine whose load drifts, each target
// sees the same mix of quiet and busy moments.
//
//   npm run bench -- send [--duration 8] [--warmup 2] [--concurrency 10] [--rounds 4] [--profile DIR] [--compare DIR]
//   (or npx bun bench/send.ts ...)
//
// --compare DIR also runs the API of another checkout of this repository (DIR, with the same
// schema) against the same database and sink, as a fourth target in the same turns: a change and
// the code before it, each against the same bare writes, under the same load.
//
// Below the figures, a table of where one send's time goes inside the API process, from the
// service's own mailbox_send_stage_seconds histogram (sums over the measured run), then the CPU one
// operation costs the whole machine in every process it goes through (API, sink, the bench's HTTP
// client, and PostgreSQL when it runs on this machine) for a send and for the bare writes: on 2
// cores with nothing else running the targets are bound by CPU, and the ratio follows those sums. --profile DIR
// runs the API and the sink under `bun --cpu-prof --cpu-prof-md` (250 µs) and leaves their profiles
// in DIR; `npx bun bench/support/cpuprofile-summary.ts DIR/<file>.cpuprofile` counts the samples.
//
// The API runs in one child process and the SMTP sink in another, so that the load generator, the
// server and the "relay" do not share one event loop. The database is a fresh one, dropped after.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig } from "../src/config.ts";
import { createAccount } from "../src/core/accounts/accounts.ts";
import { createKey } from "../src/core/accounts/keys.ts";
import { newId, randomBase32 } from "../src/core/ids.ts";
import { createMailbox } from "../src/core/mailboxes.ts";
import { markFinalDot } from "../src/core/outbound/dispatch.ts";
import { insertOutboundRecord } from "../src/core/outbound/outbound-record.ts";
import { recordOutcome } from "../src/core/outbound/record-outcome.ts";
import { makeServices, type Services } from "../src/core/services.ts";
import { makeSql, type Sql } from "../src/db.ts";
import { makeTransport } from "../src/delivery/index.ts";
import { makeApp } from "../src/http/app.ts";
import { startHttpServer } from "../src/http/server.ts";
import { makeLogger } from "../src/log.ts";
import { makeResolver } from "../src/mail/resolver.ts";
import { httpRequestDuration, sendStageDuration } from "../src/metrics.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { startSmtpSink } from "../test/support/smtp-sink.ts";
import { postgresCpuReader } from "./support/postgres-cpu.ts";
import { apiPrincipal } from "./support/principal.ts";

type Options = { duration: number; warmup: number; concurrency: number; rounds: number; profile: string | null; compare: string | null };
type Stats = { count: number; failures: number; seconds: number; perSecond: number; p50: number; p99: number; mean: number };

const TEXT = "Hello,\n\nthis is a benchmark message of ordinary length, one paragraph of plain text.\n\nRegards,\nthe bench\n";

function parseOptions(args: string[]): Options {
  const options: Options = { duration: 8, warmup: 2, concurrency: 10, rounds: 4, profile: null, compare: null };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--profile" && value) {
      options.profile = value;
    } else if (flag === "--compare" && value) {
      options.compare = resolve(value);
    } else if (
      (flag === "--duration" || flag === "--warmup" || flag === "--concurrency" || flag === "--rounds") &&
      value &&
      /^\d+$/.test(value)
    ) {
      options[flag.slice(2) as "duration" | "warmup" | "concurrency" | "rounds"] = Number(value);
    } else {
      throw new Error(
        `usage: npm run bench -- send [--duration S] [--warmup S] [--concurrency N] [--rounds N] [--profile DIR] [--compare DIR]; bad argument ${flag}`,
      );
    }
  }
  if (options.rounds < 1) throw new Error("--rounds must be at least 1");
  // Three measured targets (four with --compare) plus set-up: keep the whole run near a minute.
  const targets = options.compare ? 4 : 3;
  if (targets * (options.duration + options.warmup) > 60) throw new Error(`${targets} × (duration + warmup) must stay within 60 s`);
  if (options.duration < 1 || options.concurrency < 1) throw new Error("--duration and --concurrency must be at least 1");
  return options;
}

type Samples = { latencies: number[]; failures: number; seconds: number };

/** Runs `op` from `concurrency` workers back to back for `seconds`; latency of every call. */
async function drive(concurrency: number, seconds: number, op: () => Promise<boolean>, into?: Samples): Promise<Samples> {
  const samples = into ?? { latencies: [], failures: 0, seconds: 0 };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const ok = await op().catch(() => false);
        samples.latencies.push(performance.now() - t);
        if (!ok) samples.failures++;
      }
    }),
  );
  samples.seconds += (performance.now() - started) / 1000;
  return samples;
}

function statsOf({ latencies, failures, seconds: elapsed }: Samples): Stats {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  const mean = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
  return { count: latencies.length, failures, seconds: elapsed, perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), mean };
}

/** Child: the SMTP sink standing in for the relay. Reports its port, then how much it received. */
async function sinkMain(): Promise<void> {
  const sink = await startSmtpSink();
  process.send?.({ port: sink.port });
  process.on("message", (message) => {
    // A clean exit, so that the profiles are written.
    if (message === "exit") process.exit(0);
    if (message === "stats") {
      const sizes = sink.messages.map((m) => m.raw.length);
      process.send?.({
        cpuMicros: cpuMicros(),
        received: sink.messages.length,
        averageSize: sizes.length ? Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length) : 0,
      });
    }
  });
}

/** Child: the real API (Bun.serve, request log, auth, validation) with the smtp transport. */
async function serveMain(databaseUrl: string, sinkPort: string): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    HOST: "127.0.0.1",
    HTTP_PORT: "0",
    LOG_LEVEL: "info",
    INBOUND_AUTH_MODE: "off",
    // One key drives the whole load: the per-key rate limit would measure itself (bench ratelimit does).
    RATE_LIMIT_PER_SECOND: "0",
    DELIVERY_TRANSPORT: "smtp",
    SMTP_RELAY_URL: `smtp://127.0.0.1:${sinkPort}`,
    PUBLIC_BASE_URL: "https://mail.bench.test",
    DATA_DIR: mkdtempSync(join(tmpdir(), "bench-data-")),
  });
  const sql = makeSql(databaseUrl, { max: 10 });
  const svc = makeServices(
    { sql, config, log: makeLogger(config.logLevel), resolve: makeResolver({ servers: ["127.0.0.1:9"], timeoutMs: 100 }) },
    makeTransport,
  );
  const server = startHttpServer(svc, makeApp(svc));
  process.on("message", async (message) => {
    if (message === "exit") process.exit(0);
    if (message === "stages") process.send?.(await stageTotals());
  });
  process.send?.({ port: server.port });
}

type StageTotals = Record<string, { sum: number; count: number }>;

/** User + system CPU this process has used, in microseconds. */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Seconds spent and sends counted per stage so far, the server's own time for POST /send, and its CPU. */
async function stageTotals(): Promise<StageTotals> {
  const totals: StageTotals = { "API process CPU": { sum: cpuMicros() / 1e6, count: 0 } };
  const add = (name: string, suffix: string, value: number) => {
    const entry = (totals[name] ??= { sum: 0, count: 0 });
    if (suffix === "sum") entry.sum += value;
    if (suffix === "count") entry.count += value;
  };
  for (const v of (await sendStageDuration.get()).values) {
    const suffix = v.metricName?.split("_").pop() ?? "";
    add(String(v.labels.stage), suffix, v.value);
  }
  for (const v of (await httpRequestDuration.get()).values) {
    if (v.labels.method !== "POST" || !String(v.labels.route).endsWith("/send")) continue;
    add("server total (POST /send handled)", v.metricName?.split("_").pop() ?? "", v.value);
  }
  return totals;
}

const STAGE_ORDER = ["checks", "compose", "sign", "record", "deliver", "outcome"];
const STAGE_NOTES: Record<string, string> = {
  checks: "auth'd route: mailbox, idempotency, send lists, suppression",
  compose: "MIME build",
  sign: "DKIM",
  record: "record transaction (wall time)",
  deliver: "SMTP to the sink on a pooled session",
  outcome: "outcome transaction",
};

/** Adds what happened between `from` and `to` (two readings of stageTotals) to `into`. */
function addStages(into: StageTotals, from: StageTotals, to: StageTotals): void {
  for (const [name, value] of Object.entries(to)) {
    const entry = (into[name] ??= { sum: 0, count: 0 });
    entry.sum += value.sum - (from[name]?.sum ?? 0);
    entry.count += value.count - (from[name]?.count ?? 0);
  }
}

function stageTable(totals: StageTotals, clientMeanMs: number, sends: number, sinkCpuMs: number): string[] {
  const lines = [`${"stage (API process, mean per send)".padEnd(46)}${"ms".padStart(10)}  note`];
  const names = [...STAGE_ORDER.filter((n) => n in totals), ...Object.keys(totals).filter((n) => !STAGE_ORDER.includes(n))];
  for (const name of names) {
    if (name === "API process CPU") continue;
    const { sum, count } = totals[name]!;
    if (count === 0) continue;
    lines.push(`${name.padEnd(46)}${fixed((sum / count) * 1000, 2).padStart(10)}  ${STAGE_NOTES[name] ?? ""}`);
  }
  lines.push(
    `${"client-side latency (mean)".padEnd(46)}${fixed(clientMeanMs, 2).padStart(10)}  includes HTTP, queueing in both event loops`,
  );
  const apiCpu = ((totals["API process CPU"]?.sum ?? 0) * 1000) / sends;
  lines.push(`${"CPU per send: API process".padEnd(46)}${fixed(apiCpu, 2).padStart(10)}  user + system, all threads`);
  lines.push(`${"CPU per send: SMTP sink process".padEnd(46)}${fixed(sinkCpuMs / sends, 2).padStart(10)}  the relay's own cost`);
  return lines;
}

function spawnChild(
  args: string[],
  stdout: "ignore" | "inherit",
  profileDir: string | null,
  script: string = import.meta.path,
): { child: ReturnType<typeof Bun.spawn>; next: () => Promise<any> } {
  const inbox: unknown[] = [];
  const waiting: ((message: unknown) => void)[] = [];
  // The Markdown table weighs functions by wall time (idle gaps charged to whatever ran last); the
  // .cpuprofile's samples are counted per function by bench/support/cpuprofile-summary.ts.
  const profile = profileDir ? ["--cpu-prof", "--cpu-prof-md", "--cpu-prof-interval=250", `--cpu-prof-dir=${profileDir}`] : [];
  const child = Bun.spawn([process.execPath, ...profile, script, ...args], {
    stdout,
    stderr: "inherit",
    ipc: (message) => {
      const waiter = waiting.shift();
      if (waiter) waiter(message);
      else inbox.push(message);
    },
  });
  const next = () =>
    inbox.length
      ? Promise.resolve(inbox.shift())
      : Promise.race([
          new Promise((resolve) => waiting.push(resolve)),
          // Generous: at a load average of 30 a child took more than 15 s to start.
          Bun.sleep(60_000).then(() => Promise.reject(new Error(`child ${args[0]} did not answer within 60 s`))),
        ]);
  return { child, next };
}

/**
 * The SQL writes of one send, as dispatch and quota ran them before 2026-11-25: the usage counter (with the account
 * read it is conditional on), then in one transaction the unsubscribe token, the message row with
 * its composed bytes and the reconcile job. `withOutcome` adds the outcome record after delivery.
 */
function sqlWrites(sql: Sql, accountId: string, mailbox: { id: string; address: string }, rawSize: number, withOutcome: boolean) {
  const raw = Buffer.alloc(rawSize, "x");
  return async (): Promise<boolean> => {
    const [account] = await sql`select plan, monthly_send_quota from accounts where id = ${accountId}`;
    const reserved = await sql`
      insert into send_usage (account_id, month, sent)
      select ${accountId}, date_trunc('month', now() at time zone 'utc')::date, 1 where ${account!.monthly_send_quota}::int > 0
      on conflict (account_id, month) do update set sent = send_usage.sent + 1 where send_usage.sent < ${account!.monthly_send_quota}::int
      returning sent`;
    if (reserved.length === 0) return false;
    const messageId = newId("msg");
    await sql.begin(async (tx) => {
      await tx`insert into unsubscribe_tokens (id, account_id, address, message_id) values (${randomBase32(16)}, ${accountId}, ${"reader@example.org"}, ${messageId})`;
      await tx`
        insert into messages (id, account_id, mailbox_id, direction, rfc_message_id, thread_id, in_reply_to, "references",
          from_addr, to_addr, subject, body_raw, body_clean, truncated, delivery_status, delivery_attempts, draft_id, raw_outbound)
        values (${messageId}, ${accountId}, ${mailbox.id}, 'out', ${`<${messageId}@bench.test>`}, ${newId("thr")},
          ${null}, ${[]}::text[], ${mailbox.address}, ${"reader@example.org"}, ${"Bench"}, ${TEXT}, ${TEXT}, false, 'sending', 1, ${null}, ${raw})`;
      await tx`
        select graphile_worker.add_job('reconcile_send', json_build_object('message_id', ${messageId}::text),
          job_key => ${`reconcile:${messageId}`}::text, run_at => now() + interval '1 hour', max_attempts => 25)`;
    });
    if (withOutcome) {
      await sql.begin(async (tx) => {
        await tx`update messages set delivery_status = 'sent', provider_message_id = ${"Q1"}, delivery_error = null, raw_outbound = null where id = ${messageId}`;
        await tx`select graphile_worker.remove_job(${`reconcile:${messageId}`})`;
      });
    }
    return true;
  };
}

/** The SQL writes of one send as dispatch makes them now, in its order, through its own functions. */
function currentWrites(svc: Services, accountId: string, mailbox: { id: string; address: string }, rawSize: number) {
  const raw = new Uint8Array(rawSize).fill(120);
  return async (): Promise<boolean> => {
    const messageId = newId("msg");
    const threadId = newId("thr");
    const recorded = await insertOutboundRecord(svc.sql, svc.config, {
      messageId,
      accountId,
      mailboxId: mailbox.id,
      rfcMessageId: `${messageId}@bench.test`,
      threadId,
      inReplyTo: null,
      references: [],
      from: mailbox.address,
      to: "reader@example.org",
      subject: "Bench",
      text: TEXT,
      draftId: null,
      raw,
      unsubscribeTokenId: randomBase32(16),
    });
    if (!recorded) return false;
    await markFinalDot(svc.sql, messageId, 1);
    const outcome = { kind: "sent" as const, providerMessageId: "Q1", response: "250 ok" };
    return await recordOutcome(svc, { messageId, threadId, draftId: null, attempt: 1, outcome }, { accountId }, { keepForRetry: false });
  };
}

type Budget = {
  sends: number;
  apiCpuMs: number;
  sinkCpuMs: number;
  httpClientCpuMs: number;
  sendServerMs: number | null;
  bareOps: number;
  bareClientCpuMs: number;
  bareServerMs: number | null;
  comparedServerMs: { ms: number; sends: number } | null;
};

/**
 * The CPU one operation costs the whole machine, in every process it goes through, PostgreSQL
 * included (when it runs here). When the machine's cores are the limit, as on 2 cores with
 * nothing else running, the throughput ratio follows bare / send of these sums, not the API's
 * share alone.
 */
function machineBudget(b: Budget): string[] {
  const per = (ms: number, ops: number) => ms / Math.max(1, ops);
  const line = (name: string, value: number, note: string) => `${name.padEnd(46)}${fixed(value, 2).padStart(10)}  ${note}`;
  const lines = [line("CPU per send: the bench's HTTP client", per(b.httpClientCpuMs, b.sends), "the bench's own process while it sends")];
  if (b.sendServerMs === null || b.bareServerMs === null) return [...lines, "PostgreSQL's CPU: not a process on this machine, not counted"];
  const sendServer = per(b.sendServerMs, b.sends);
  const bareServer = per(b.bareServerMs, b.bareOps);
  const sendTotal = per(b.apiCpuMs + b.sinkCpuMs + b.httpClientCpuMs, b.sends) + sendServer;
  const bareTotal = per(b.bareClientCpuMs, b.bareOps) + bareServer;
  return [
    ...lines,
    line("CPU per send: PostgreSQL (all its processes)", sendServer, "the server's CPU in the send's turns"),
    ...(b.comparedServerMs
      ? [line("CPU per send: PostgreSQL, --compare checkout", per(b.comparedServerMs.ms, b.comparedServerMs.sends), "")]
      : []),
    line("CPU per op: PostgreSQL, bare SQL now", bareServer, "the server's CPU in the bare writes' turns"),
    line("CPU per send, whole machine", sendTotal, "API + sink + HTTP client + PostgreSQL"),
    line("CPU per op, bare SQL now, whole machine", bareTotal, "client + PostgreSQL"),
    `bare / send in CPU: ${fixed(bareTotal / sendTotal, 2)}x  (the throughput ratio when the cores are the limit)`,
  ];
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const emptySamples = (): Samples => ({ latencies: [], failures: 0, seconds: 0 });

function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const started = performance.now();
  const loadAtStart = loadAverage();
  const database = await createTestDatabase();
  const children: ReturnType<typeof Bun.spawn>[] = [];
  const sql = makeSql(database.url, { max: options.concurrency });
  try {
    // A quota no run can exhaust: a 402 would measure the wrong thing.
    const account = await createAccount(sql, { name: "bench", monthlySendQuota: 1_000_000_000 });
    const { key, secret } = await createKey(sql, { accountId: account.id, scope: "api" });
    const principal = apiPrincipal(key.id, account.id);
    const fixturesConfig = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent" });
    // The transport's name is what the outcome's events record; the baseline hands nothing over.
    const svcForFixtures = { sql, config: fixturesConfig, log: makeLogger("silent"), transport: { name: "smtp" } } as unknown as Services;
    const mailbox = await createMailbox(svcForFixtures, principal, { slug: "bench-sender" });
    const baselineMailbox = await createMailbox(svcForFixtures, principal, { slug: "bench-baseline" });
    const comparedMailbox = options.compare ? await createMailbox(svcForFixtures, principal, { slug: "bench-compared" }) : null;

    const sink = spawnChild(["--sink"], "inherit", options.profile);
    children.push(sink.child);
    const { port: sinkPort } = await sink.next();
    // The request log goes to stdout, written as in production but not kept.
    const api = spawnChild(["--serve", database.url, String(sinkPort)], "ignore", options.profile);
    children.push(api.child);
    const { port: apiPort } = await api.next();
    // The other checkout's API, started by its own copy of this file.
    const compared = options.compare
      ? spawnChild(["--serve", database.url, String(sinkPort)], "ignore", null, join(options.compare, "bench", "send.ts"))
      : null;
    if (compared) children.push(compared.child);
    const comparedPort = compared ? (await compared.next()).port : null;

    const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
    const sender = async (port: number, mailboxId: string) => {
      const url = `http://127.0.0.1:${port}/api/v1/send`;
      const body = JSON.stringify({ mailbox_id: mailboxId, to: "reader@example.org", subject: "Bench", text: TEXT });
      const probe = await fetch(url, { method: "POST", headers, body });
      if (probe.status !== 201) throw new Error(`POST ${url} answered ${probe.status}: ${await probe.text()}`);
      return async () => {
        const response = await fetch(url, { method: "POST", headers, body });
        await response.arrayBuffer();
        return response.status === 201;
      };
    };
    const send = await sender(apiPort, mailbox.id);
    const sendCompared = compared ? await sender(comparedPort!, comparedMailbox!.id) : null;

    if (options.warmup > 0) await drive(options.concurrency, options.warmup, send);
    if (sendCompared && options.warmup > 0) await drive(options.concurrency, options.warmup, sendCompared);
    sink.child.send("stats");
    const sinkBefore = await sink.next();
    // The baselines write a message of the size the sink actually received.
    const writes = currentWrites(svcForFixtures, account.id, baselineMailbox, sinkBefore.averageSize);
    const allWrites = sqlWrites(sql, account.id, baselineMailbox, sinkBefore.averageSize, true);
    if (options.warmup > 0) await drive(options.concurrency, options.warmup, writes);
    if (options.warmup > 0) await drive(options.concurrency, options.warmup, allWrites);

    const sentIn = async (mailboxIds: string[]) =>
      (await sql`select count(*)::int as n from messages where mailbox_id = any(${mailboxIds}) and delivery_status = 'sent'`)[0]!
        .n as number;
    const sendMailboxes = [mailbox.id, ...(comparedMailbox ? [comparedMailbox.id] : [])];
    const before = await sentIn(sendMailboxes);
    const samples = { send: emptySamples(), bare: emptySamples(), bareAll: emptySamples(), compared: emptySamples() };
    const comparedStages: StageTotals = {};
    // The API's stage sums and CPU over the send's slices only (it idles while the baselines run).
    const stages: StageTotals = {};
    // This process's CPU while it runs the "now" writes: their client-side cost (postgres.js).
    let bareClientCpuMicros = 0;
    // And while it drives the sends: the HTTP client's cost, part of a send on this machine.
    let sendClientCpuMicros = 0;
    // The database server's CPU seconds in each target's turns, when it runs on this machine.
    const serverCpu = await postgresCpuReader(sql);
    const serverSeconds = { send: 0, bare: 0, compared: 0 };
    const timed = async (target: keyof typeof serverSeconds, turn: () => Promise<unknown>) => {
      const from = serverCpu?.() ?? 0;
      await turn();
      serverSeconds[target] += (serverCpu?.() ?? 0) - from;
    };
    const slice = options.duration / options.rounds;
    const targets = [
      async () => {
        api.child.send("stages");
        const from: StageTotals = await api.next();
        const client = cpuMicros();
        await timed("send", () => drive(options.concurrency, slice, send, samples.send));
        sendClientCpuMicros += cpuMicros() - client;
        api.child.send("stages");
        addStages(stages, from, await api.next());
      },
      async () => {
        const from = cpuMicros();
        await timed("bare", () => drive(options.concurrency, slice, writes, samples.bare));
        bareClientCpuMicros += cpuMicros() - from;
      },
      () => drive(options.concurrency, slice, allWrites, samples.bareAll),
      ...(compared
        ? [
            async () => {
              compared.child.send("stages");
              const from: StageTotals = await compared.next();
              await timed("compared", () => drive(options.concurrency, slice, sendCompared!, samples.compared));
              compared.child.send("stages");
              addStages(comparedStages, from, await compared.next());
            },
          ]
        : []),
    ];
    for (let round = 0; round < options.rounds; round++) {
      for (let i = 0; i < targets.length; i++) await targets[(round + i) % targets.length]!();
    }
    const after = await sentIn(sendMailboxes);
    sink.child.send("stats");
    const sinkAfter = await sink.next();
    const [http, bare, bareAll] = [statsOf(samples.send), statsOf(samples.bare), statsOf(samples.bareAll)];
    const other = compared ? statsOf(samples.compared) : null;

    const delivered = sinkAfter.received - sinkBefore.received;
    const stored = after - before;
    const answered = http.count - http.failures + (other ? other.count - other.failures : 0);
    const row = (name: string, s: Stats) =>
      `${name.padEnd(46)}${fixed(s.perSecond).padStart(10)}${fixed(s.p50, 2).padStart(10)}${fixed(s.p99, 2).padStart(10)}${String(s.count).padStart(8)}${String(s.failures).padStart(9)}`;
    console.log(
      [
        "",
        `POST /api/v1/send → smtp transport → loopback SMTP sink, against the bare SQL writes of a send (no HTTP, compose or SMTP).`,
        `${options.concurrency} concurrent workers, ${options.duration} s measured each in ${options.rounds} turns after ${options.warmup} s warm-up; loopback; message ${sinkBefore.averageSize} B.`,
        `load average (1, 5, 15 min) at the start: ${loadAtStart}; at the end: ${loadAverage()}`,
        "",
        `${"target".padEnd(46)}${"ops/s".padStart(10)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}${"ops".padStart(8)}${"failed".padStart(9)}`,
        row("POST /api/v1/send (full pipeline)", http),
        row("bare SQL now: record, final dot, outcome", bare),
        row("bare SQL before: usage, token+message+job, outcome", bareAll),
        ...(other ? [row(`POST /api/v1/send, --compare checkout`, other)] : []),
        "",
        `send / bare writes now:          throughput ${fixed(http.perSecond / bare.perSecond, 2)}x   p50 ${fixed(http.p50 / bare.p50, 2)}x   p99 ${fixed(http.p99 / bare.p99, 2)}x`,
        `send / bare writes before:       throughput ${fixed(http.perSecond / bareAll.perSecond, 2)}x   p50 ${fixed(http.p50 / bareAll.p50, 2)}x   p99 ${fixed(http.p99 / bareAll.p99, 2)}x`,
        ...(other
          ? [
              `compared / bare writes now:      throughput ${fixed(other.perSecond / bare.perSecond, 2)}x   p50 ${fixed(other.p50 / bare.p50, 2)}x   p99 ${fixed(other.p99 / bare.p99, 2)}x   (${options.compare})`,
              `send / compared:                 throughput ${fixed(http.perSecond / other.perSecond, 2)}x   p50 ${fixed(http.p50 / other.p50, 2)}x   p99 ${fixed(http.p99 / other.p99, 2)}x`,
            ]
          : []),
        `delivered at the sink during the measured run: ${delivered}; stored as sent: ${stored}; 201 answers: ${answered}`,
        "",
        // With --compare the sink served both APIs: its CPU is given per send of both.
        ...stageTable(
          stages,
          http.mean,
          http.count,
          (sinkAfter.cpuMicros - sinkBefore.cpuMicros) / 1000 / (answered / Math.max(1, http.count)),
        ),
        ...(other ? ["", "the --compare checkout:", ...stageTable(comparedStages, other.mean, other.count, 0).slice(1, -1)] : []),
        `${"CPU per op: bare SQL now, client process".padEnd(46)}${fixed(bareClientCpuMicros / 1000 / Math.max(1, bare.count), 2).padStart(10)}  the bench's own process (postgres.js), all threads`,
        ...machineBudget({
          sends: http.count,
          apiCpuMs: (stages["API process CPU"]?.sum ?? 0) * 1000,
          sinkCpuMs: (sinkAfter.cpuMicros - sinkBefore.cpuMicros) / 1000 / (answered / Math.max(1, http.count)),
          httpClientCpuMs: sendClientCpuMicros / 1000,
          sendServerMs: serverCpu ? serverSeconds.send * 1000 : null,
          bareOps: bare.count,
          bareClientCpuMs: bareClientCpuMicros / 1000,
          bareServerMs: serverCpu ? serverSeconds.bare * 1000 : null,
          comparedServerMs: serverCpu && other ? { ms: serverSeconds.compared * 1000, sends: other.count } : null,
        }),
        `total time ${fixed((performance.now() - started) / 1000)} s`,
        "",
      ].join("\n"),
    );
    if (http.failures > 0 || bare.failures > 0 || bareAll.failures > 0 || (other?.failures ?? 0) > 0)
      throw new Error("some operations failed: the figures above are not comparable");
    if (delivered !== answered || stored !== answered) throw new Error("the sink or the store does not match the 201 answers");
  } finally {
    await sql.end();
    for (const child of children) {
      // Asked to exit first (a profile is written on a clean exit), killed if it does not.
      child.send("exit");
      const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(5_000).then(() => false)]);
      if (!exited) child.kill();
      await child.exited;
    }
    await database.drop();
  }
}

if (import.meta.main) {
  const role = process.argv[2];
  if (role === "--sink") await sinkMain();
  else if (role === "--serve") await serveMain(process.argv[3]!, process.argv[4]!);
  else {
    // Also runnable on its own: `npx bun bench/send.ts [options]`.
    await run(process.argv.slice(2));
    process.exit(0);
  }
}
