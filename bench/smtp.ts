// Inbound SMTP: messages per second our listener accepts (250 only after the raw message, the
// message row and its job are committed), against a bare smtp-server that accepts and discards.
// Both are driven the same way: N connections over loopback, each sending one message after
// another on its own session (nodemailer's SMTPConnection, pipelined envelope), for a fixed time.
//
//   npm run bench -- smtp [--duration 8] [--warmup 2] [--concurrency 10] [--size 10240] [--messages 1000] [--profile 200] [--rounds 1] [--listeners 1]
//
// Then, when Debian's `postfix` is installed, Postfix's own client `smtp-source` drives our
// listener, the bare smtp-server and a loopback Postfix (bench/support/postfix.ts) the same way:
// `--messages` messages over `--concurrency` sessions, a new connection per message and then
// connections reused (every server first warmed up with `--messages` in each mode, so that no mode
// measures our JIT's warm-up), with the CPU each server spent per message (from /proc); `--rounds N` runs
// the targets in turn N times and reports the median of each; `--listeners N` runs our listener as
// N processes sharing its port (SMTP_REUSE_PORT), the CPU of all of them counted. Last, a per-stage
// profile of `--profile` messages accepted one at a time.
//
// Each server runs in its own child process, so the load generator does not share its event
// loop. The database is a fresh one on DATABASE_URL's server (or an embedded one), dropped after.
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { startSmtpListener } from "../smtp/listener.ts";
import { loadConfig } from "../src/config.ts";
import { createAccount } from "../src/core/accounts/accounts.ts";
import { createMailbox } from "../src/core/mailboxes.ts";
import { makeServices } from "../src/core/services.ts";
import { makeSql } from "../src/db.ts";
import { makeTransport } from "../src/delivery/index.ts";
import { makeLogger } from "../src/log.ts";
import { makeResolver } from "../src/mail/resolver.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { connectSmtp } from "../test/support/smtp-connection.ts";
import { profileInbound } from "./support/inbound-profile.ts";
import { type LoopbackPostfix, postfixAvailable, smtpSource, smtpSourceAvailable, startPostfix } from "./support/postfix.ts";
import { available as cpuAvailable, cpuOf, cpuOfTree } from "./support/process-cpu.ts";

const LISTENER_APP = "bench-smtp-listener";

type Options = {
  duration: number;
  warmup: number;
  concurrency: number;
  size: number;
  messages: number;
  profile: number;
  rounds: number;
  listeners: number;
};
type Stats = { count: number; failures: number; seconds: number; perSecond: number; p50: number; p99: number };

function parseOptions(args: string[]): Options {
  const options: Options = { duration: 8, warmup: 2, concurrency: 10, size: 10_240, messages: 1000, profile: 200, rounds: 1, listeners: 1 };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    const name = flag?.slice(2) as keyof Options;
    if (flag?.startsWith("--") && name in options && value && /^\d+$/.test(value)) options[name] = Number(value);
    else
      throw new Error(
        `usage: npm run bench -- smtp [--duration S] [--warmup S] [--concurrency N] [--size BYTES] [--messages N] [--profile N] [--rounds N] [--listeners N]; bad argument ${flag}`,
      );
  }
  // Two measured targets plus set-up: keep the whole run well under a minute.
  if (2 * (options.duration + options.warmup) > 40) throw new Error("2 × (duration + warmup) must stay within 40 s");
  if (
    options.duration < 1 ||
    options.concurrency < 1 ||
    options.size < 512 ||
    options.rounds < 1 ||
    options.rounds > 9 ||
    options.listeners < 1 ||
    options.listeners > 4
  )
    throw new Error("--duration, --concurrency ≥ 1, --size ≥ 512, --rounds 1 to 9, --listeners 1 to 4");
  return options;
}

/** A plain-text message of exactly `size` bytes, with a Message-ID unique to `n`. */
function message(size: number, n: number): Buffer {
  const head = [
    "From: Bench Sender <sender@bench.example>",
    "To: agent-bench@agents.localhost",
    "Subject: Inbound benchmark message",
    `Message-ID: <bench-${n}-${process.pid}@bench.example>`,
    "Date: Mon, 2 Jun 2025 10:00:00 +0000",
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=us-ascii",
    "",
    "",
  ].join("\r\n");
  const line = "The quick brown fox jumps over the lazy dog while the agent reads its mail.\r\n";
  let body = line.repeat(Math.ceil(size / line.length));
  body = body.slice(0, Math.max(0, size - head.length - 2)) + "\r\n";
  return Buffer.from(head + body);
}

// Message-IDs unique across every run of this process: inbound dedupe stores a repeated
// Message-ID with the same bytes once, which would make the row count disagree with the 250s.
let sequence = 0;

/**
 * `concurrency` connections, opened before the clock starts, each sending back to back for
 * `seconds`; the latency of a message is from its MAIL FROM to the final reply.
 */
async function drive(port: number, to: string, o: Options, seconds: number): Promise<Stats> {
  const connections = await Promise.all(
    Array.from({ length: o.concurrency }, () => connectSmtp(port, { name: "bench.client", socketTimeoutMs: 30_000 })),
  );
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    connections.map(async (connection) => {
      while (performance.now() < deadline) {
        const t = performance.now();
        // A fresh envelope per message: nodemailer keeps its transaction state on this object.
        const ok = await new Promise<boolean>((resolve) =>
          connection.send({ from: "sender@bench.example", to: [to] }, message(o.size, sequence++), (error, info) =>
            resolve(!error && /^250/.test(info?.response ?? "")),
          ),
        );
        latencies.push(performance.now() - t);
        if (!ok) failures++;
      }
      connection.quit();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  const ok = latencies.length - failures;
  return { count: latencies.length, failures, seconds: elapsed, perSecond: ok / elapsed, p50: at(0.5), p99: at(0.99) };
}

/** Child: our listener, exactly as the smtp role starts it, over the bench database. */
async function oursMain(databaseUrl: string, port: number): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    HOST: "127.0.0.1",
    SMTP_PORT: String(port),
    // Several listener processes share one port (the kernel spreads the connections).
    SMTP_REUSE_PORT: "true",
    // As in production (Postfix logs every message too; both logs go to a stdout nobody reads).
    LOG_LEVEL: "info",
    INBOUND_AUTH_MODE: "off",
    DATA_DIR: join(tmpdir(), "mailbox-bench-smtp-data"),
  });
  const svc = makeServices(
    {
      sql: makeSql(databaseUrl),
      config,
      log: makeLogger(config.logLevel),
      resolve: makeResolver({ servers: ["127.0.0.1:9"], timeoutMs: 100 }),
    },
    makeTransport,
  );
  const smtp = await startSmtpListener(svc, { port });
  // Exit cleanly when asked, so that a `bun --cpu-prof-md` child writes its profile.
  process.on("message", (message) => {
    if (message === "exit") process.exit(0);
  });
  process.send?.({ port: smtp.port });
}

/** Child: the floor. The same server library, accepting every recipient and discarding the data. */
async function bareMain(): Promise<void> {
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ["AUTH"],
    size: 25 * 1024 * 1024,
    greetingDelay: 0,
    onRcptTo: (_address, _session, callback) => callback(),
    onData(stream, _session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => callback(null, "2.0.0 Ok: discarded"));
    },
  });
  server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.server.address() as { port: number }).port }));
}

function spawnChild(
  args: string[],
  stdout: "inherit" | "ignore" = "inherit",
): { child: ReturnType<typeof Bun.spawn>; ready: Promise<{ port: number }> } {
  let answer: (message: { port: number }) => void = () => {};
  const ready = new Promise<{ port: number }>((resolve, reject) => {
    answer = resolve;
    setTimeout(() => reject(new Error(`child ${args[0]} did not start within 20 s`)), 20_000).unref();
  });
  const child = Bun.spawn([process.execPath, import.meta.path, ...args], {
    stdout,
    stderr: "inherit",
    ipc: (message) => answer(message),
  });
  return { child, ready };
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const started = performance.now();
  // Printed beside the figures: on a shared machine a ratio means little without it.
  const loadAtStart = loadavg();
  const database = await createTestDatabase();
  const sql = makeSql(database.url, { max: 4 });
  const children: ReturnType<typeof Bun.spawn>[] = [];
  try {
    const account = await createAccount(sql, { name: "bench" });
    const principal = {
      keyId: "key_bench",
      accountId: account.id,
      plan: "free" as const,
      scope: "api" as const,
      mailboxId: null,
      canRead: true,
      canSend: true,
    };
    const fixtures = { sql, config: loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent" }), log: makeLogger("silent") } as never;
    const mailbox = await createMailbox(fixtures, principal, { slug: "bench" });

    // The listener's connections carry a name, so its backends' CPU can be told apart.
    const listenerUrl = new URL(database.url);
    listenerUrl.searchParams.set("application_name", LISTENER_APP);
    // The first listener binds a free port; the others (--listeners) bind the same one.
    const ours = spawnChild(["--ours", listenerUrl.toString(), "0"], "ignore");
    const more: ReturnType<typeof spawnChild>[] = [];
    const bare = spawnChild(["--bare"]);
    children.push(ours.child, bare.child);
    const [{ port: oursPort }, { port: barePort }] = await Promise.all([ours.ready, bare.ready]);
    for (let i = 1; i < options.listeners; i++) {
      const next = spawnChild(["--ours", listenerUrl.toString(), String(oursPort)], "ignore");
      children.push(next.child);
      await next.ready;
      more.push(next);
    }
    const listenerPids = [ours.child.pid, ...more.map((next) => next.child.pid)];

    const stored = async () => (await sql`select count(*)::int as n from messages where mailbox_id = ${mailbox.id}`)[0]!.n as number;
    if (options.warmup > 0) await drive(oursPort, mailbox.address, options, options.warmup);
    const before = await stored();
    const listener = await drive(oursPort, mailbox.address, options, options.duration);
    const after = await stored();
    const [jobs] = await sql`
      select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'process_inbound'`;

    if (options.warmup > 0) await drive(barePort, mailbox.address, options, options.warmup);
    const floor = await drive(barePort, mailbox.address, options, options.duration);

    // smtp-source: the same client for all three servers, both connection modes.
    const sourceRows: string[] = [];
    const cpuSplit: string[] = [];
    let postfix: LoopbackPostfix | null = null;
    if (smtpSourceAvailable()) {
      try {
        if (postfixAvailable()) postfix = await startPostfix();
      } catch (error) {
        console.error(`postfix: ${(error as Error).message}; comparing without it`);
      }
      // CPU per message of everything that serves it: our listener process and its PostgreSQL
      // backends (found by application_name; the WAL writer and checkpointer, shared with the
      // rest of the server, are not counted); the bare server's process; Postfix's master and all
      // its daemons (smtpd, cleanup, qmgr, trivial-rewrite, discard).
      const listenerBackends = async () =>
        (await sql`select pid from pg_stat_activity where application_name = ${LISTENER_APP}`).map((row) => row.pid as number);
      type Target = { name: string; port: number; to: string; cpu: () => Promise<Map<number, number>> };
      const single =
        (pid: number, tree = false) =>
        async () =>
          new Map([[pid, tree ? cpuOfTree(pid) : cpuOf([pid])]]);
      const targets: Target[] = [
        {
          name: "our listener",
          port: oursPort,
          to: mailbox.address,
          cpu: async () =>
            new Map([
              ...listenerPids.map((pid) => [pid, cpuOf([pid])] as [number, number]),
              ...(await listenerBackends()).map((pid) => [pid, cpuOf([pid])] as [number, number]),
            ]),
        },
        { name: "bare smtp-server", port: barePort, to: mailbox.address, cpu: single(bare.child.pid) },
      ];
      if (postfix)
        targets.push({
          name: "postfix 3.7 (queue with fsync, then discard)",
          port: postfix.port,
          to: "agent@discard.example",
          cpu: single(postfix.pid, true),
        });
      // Every server warmed up in both modes before either is measured: our listener's JIT is
      // still compiling after thousands of messages, and the mode measured first would otherwise
      // pay for it (the new-connection mode, whose code paths the nodemailer runs never took).
      for (const reuse of [false, true])
        for (const { port, to } of targets)
          await smtpSource(port, { messages: options.messages, sessions: options.concurrency, bodyBytes: options.size, reuse, to });
      for (const reuse of [false, true]) {
        // Each round runs every target once, in turn, so a change of the machine's load between
        // them moves all of them; with several rounds the median of each is reported.
        const runs = new Map<string, { perSecond: number[]; seconds: number[]; cpuMs: number[]; listenerMs: number[] }>();
        for (let round = 0; round < options.rounds; round++)
          for (const { name, port, to, cpu } of targets) {
            // Warm-up: a tenth of the run, not counted.
            await smtpSource(port, {
              messages: Math.max(options.concurrency, Math.floor(options.messages / 10)),
              sessions: options.concurrency,
              bodyBytes: options.size,
              reuse,
              to,
            });
            const beforeRun = name === "our listener" ? await stored() : 0;
            const cpuBefore = await cpu();
            const result = await smtpSource(port, {
              messages: options.messages,
              sessions: options.concurrency,
              bodyBytes: options.size,
              reuse,
              to,
            });
            // Postfix's daemons may still be finishing the last messages' queue work: let them.
            if (postfix && port === postfix.port) await Bun.sleep(300);
            const cpuAfter = await cpu();
            let cpuSeconds = 0;
            for (const [pid, seconds] of cpuAfter) cpuSeconds += seconds - (cpuBefore.get(pid) ?? 0);
            const listenerSeconds = listenerPids.reduce((sum, pid) => sum + (cpuAfter.get(pid) ?? 0) - (cpuBefore.get(pid) ?? 0), 0);
            if (name === "our listener" && (await stored()) - beforeRun !== options.messages)
              throw new Error("smtp-source: stored rows do not match the messages sent");
            if (!result.ok) throw new Error(`smtp-source against ${name} failed`);
            const entry = runs.get(name) ?? { perSecond: [], seconds: [], cpuMs: [], listenerMs: [] };
            entry.perSecond.push(result.perSecond);
            entry.seconds.push(result.seconds);
            entry.cpuMs.push((1000 * cpuSeconds) / options.messages);
            entry.listenerMs.push((1000 * listenerSeconds) / options.messages);
            runs.set(name, entry);
          }
        const ours = runs.get("our listener")!;
        const mode = reuse ? "reused connections" : "new connection per message";
        cpuSplit.push(
          `${mode}: listener process ${fixed(median(ours.listenerMs), 2)} ms, its PostgreSQL backends ${fixed(median(ours.cpuMs) - median(ours.listenerMs), 2)} ms`,
        );
        for (const [name, r] of runs) {
          const label = `${name}, ${mode}`;
          const ratios = name === "our listener" ? "" : `${fixed(median(ours.perSecond) / median(r.perSecond), 2)}x`;
          sourceRows.push(
            `${label.padEnd(72)}${fixed(median(r.perSecond)).padStart(10)}${fixed(median(r.seconds), 2).padStart(10)}${(cpuAvailable ? fixed(median(r.cpuMs), 2) : "-").padStart(12)}${ratios.padStart(12)}`,
          );
          if (options.rounds > 1 && name !== "our listener")
            sourceRows.push(
              `${"  each round: ours / it".padEnd(72)}${ours.perSecond.map((o, i) => `${fixed(o / r.perSecond[i]!, 2)}x`).join(" ")}`,
            );
        }
      }
      await postfix?.stop();
    }

    const profileSvc = makeServices(
      {
        sql,
        config: loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent", INBOUND_AUTH_MODE: "off" }),
        log: makeLogger("silent"),
        resolve: makeResolver({ servers: ["127.0.0.1:9"], timeoutMs: 100 }),
      },
      makeTransport,
    );
    const stages =
      options.profile > 0
        ? await profileInbound(profileSvc, mailbox.address, () => message(options.size, sequence++), options.profile)
        : [];

    const row = (name: string, s: Stats) =>
      `${name.padEnd(44)}${fixed(s.perSecond).padStart(10)}${fixed(s.p50, 2).padStart(10)}${fixed(s.p99, 2).padStart(10)}${String(s.count).padStart(8)}${String(s.failures).padStart(9)}`;
    console.log(
      [
        "",
        "Inbound SMTP on loopback: our listener (250 after the message and its job commit) against a bare smtp-server that discards.",
        `${options.concurrency} connections, ${options.size} B messages, ${options.duration} s measured after ${options.warmup} s warm-up each.`,
        "",
        `${"target".padEnd(44)}${"msg/s".padStart(10)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}${"sent".padStart(8)}${"failed".padStart(9)}`,
        row("our listener (parse, sanitize, store, enqueue)", listener),
        row("bare smtp-server (accept and discard)", floor),
        "",
        `listener / bare: throughput ${fixed(listener.perSecond / floor.perSecond, 3)}x   p50 ${fixed(listener.p50 / floor.p50, 1)}x   p99 ${fixed(listener.p99 / floor.p99, 1)}x`,
        `stored during the measured run: ${after - before} rows for ${listener.count - listener.failures} answers 250; process_inbound jobs queued: ${jobs!.n}`,
        ...(sourceRows.length
          ? [
              "",
              `smtp-source (Postfix's load generator), ${options.messages} messages of ${options.size} B body over ${options.concurrency} sessions${options.listeners > 1 ? `, our listener as ${options.listeners} processes on one port (SMTP_REUSE_PORT)` : ""}${options.rounds > 1 ? `, median of ${options.rounds} rounds (targets in turn)` : ""}${postfix ? "" : " (postfix not available: not compared)"}:`,
              `${"target".padEnd(72)}${"msg/s".padStart(10)}${"seconds".padStart(10)}${"CPU ms/msg".padStart(12)}${"ours / it".padStart(12)}`,
              ...sourceRows,
              ...(cpuAvailable ? ["", "our CPU per message:", ...cpuSplit.map((line) => `  ${line}`)] : []),
            ]
          : ["", "smtp-source not installed (Debian package postfix): the Postfix comparison is skipped."]),
        ...(stages.length
          ? [
              "",
              `Per-stage cost of one accepted message, ${options.profile} messages one at a time (ms):`,
              `${"stage".padEnd(50)}${"p50".padStart(10)}${"mean".padStart(10)}`,
              ...stages.map((r) => `${r.stage.padEnd(50)}${fixed(r.p50, 3).padStart(10)}${fixed(r.mean, 3).padStart(10)}`),
            ]
          : []),
        `total time ${fixed((performance.now() - started) / 1000)} s; load average ${loadAtStart.map((l) => fixed(l, 2)).join(" ")} at the start, ${loadavg()
          .map((l) => fixed(l, 2))
          .join(" ")} at the end`,
        "",
      ].join("\n"),
    );
    if (listener.failures > 0 || floor.failures > 0)
      throw new Error("some messages were not accepted: the figures above are not comparable");
    if (after - before !== listener.count) throw new Error("stored rows do not match the 250 answers");
  } finally {
    await sql.end({ timeout: 5 });
    for (const child of children) {
      child.kill();
      await child.exited;
    }
    await database.drop();
  }
}

if (import.meta.main) {
  const role = process.argv[2];
  if (role === "--ours") await oursMain(process.argv[3]!, Number(process.argv[4] ?? 0));
  else if (role === "--bare") await bareMain();
  else {
    // Also runnable on its own: `npx bun bench/smtp.ts [options]`.
    await run(process.argv.slice(2));
    process.exit(0);
  }
}
