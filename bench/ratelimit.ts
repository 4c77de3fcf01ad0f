// Overload: one key floods GET /api/v1/mailboxes while another key makes ordinary requests. The
// flooding key must be held to its rate (RATE_LIMIT_PER_SECOND plus its burst), answered 429 past
// it, while the other key's p99 stays within 1.5× of its p99 with nobody flooding.
//
//   npm run bench -- ratelimit [--duration 8] [--rate 50] [--flood-connections 20] [--connections 2] [--hold-ms 250]
//
// --hold-ms sets RATE_LIMIT_REFUSAL_HOLD_MS (0 turns the refusal hold off, to compare). The API
// runs in a child process, the flooding client in another; the other key is driven from this one,
// alone, then beside the flood, then alone again (how far the shared machine moved meanwhile). The
// API process's CPU per second in each phase is read from /proc: what the flood costs it.

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon, { type Result } from "autocannon";
import { loadConfig } from "../src/config.ts";
import { createAccount } from "../src/core/accounts/accounts.ts";
import { createKey } from "../src/core/accounts/keys.ts";
import { makeServices } from "../src/core/services.ts";
import { makeSql } from "../src/db.ts";
import { makeTransport } from "../src/delivery/index.ts";
import { makeApp } from "../src/http/app.ts";
import { startHttpServer } from "../src/http/server.ts";
import { makeLogger } from "../src/log.ts";
import { makeResolver } from "../src/mail/resolver.ts";
import { leaseChunk } from "../src/request/rate-limit.ts";
import { createTestDatabase } from "../test/support/database.ts";

type Options = { duration: number; rate: number; "flood-connections": number; connections: number; "hold-ms": number };

function parseOptions(args: string[]): Options {
  const options: Options = { duration: 8, rate: 50, "flood-connections": 20, connections: 2, "hold-ms": 250 };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    const name = flag?.slice(2) as keyof Options;
    if (flag?.startsWith("--") && name in options && value && /^\d+$/.test(value) && (Number(value) > 0 || name === "hold-ms"))
      options[name] = Number(value);
    else
      throw new Error(
        `usage: npm run bench -- ratelimit [--duration S] [--rate N] [--flood-connections N] [--connections N] [--hold-ms MS]; bad argument ${flag}`,
      );
  }
  if (options.duration > 20) throw new Error("--duration at most 20 s");
  return options;
}

async function serve(databaseUrl: string, rate: string, holdMs: string): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    HOST: "127.0.0.1",
    HTTP_PORT: "0",
    LOG_LEVEL: "warn",
    INBOUND_AUTH_MODE: "off",
    RATE_LIMIT_PER_SECOND: rate,
    RATE_LIMIT_BURST: rate,
    RATE_LIMIT_REFUSAL_HOLD_MS: holdMs,
    DATA_DIR: mkdtempSync(join(tmpdir(), "bench-data-")),
  });
  const svc = makeServices(
    {
      sql: makeSql(databaseUrl, { max: 10 }),
      config,
      log: makeLogger(config.logLevel),
      resolve: makeResolver({ servers: ["127.0.0.1:9"], timeoutMs: 100 }),
    },
    makeTransport,
  );
  process.send?.({ port: startHttpServer(svc, makeApp(svc)).port });
}

const load = (url: string, key: string, connections: number, duration: number, overallRate?: number): Promise<Result> =>
  autocannon({
    url,
    connections,
    duration,
    headers: { authorization: `Bearer ${key}` },
    timeout: 10,
    ...(overallRate ? { overallRate } : {}),
  });

type Summary = { rps: number; ok: number; refused: number; p50: number; p99: number };
const summary = (r: Result): Summary => ({
  rps: r.requests.average,
  ok: r["2xx"],
  refused: r.non2xx,
  p50: r.latency.p50,
  p99: r.latency.p99,
});

/**
 * The flood runs in a process of its own, as a runaway agent would: driven from this process, the
 * flooding client's own event loop (10,000 answers a second without a hold) delayed the other
 * key's client here and counted as the API's latency.
 */
async function floodFromChild(url: string, key: string, connections: number, duration: number): Promise<Summary> {
  let done: (s: Summary) => void = () => {};
  const finished = new Promise<Summary>((resolve) => (done = resolve));
  const child = Bun.spawn([process.execPath, import.meta.path, "--flood", url, key, String(connections), String(duration)], {
    stdout: "inherit",
    stderr: "inherit",
    ipc: (m) => done(m as Summary),
  });
  const result = await finished;
  await child.exited;
  return result;
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

/** Runs `work` and says how many CPU milliseconds per second the API process spent meanwhile. */
async function withApiCpu<T>(pid: number, duration: number, work: () => Promise<T>): Promise<[T, number]> {
  const before = cpuSeconds(pid);
  const result = await work();
  return [result, ((cpuSeconds(pid) - before) * 1000) / duration];
}

export default async function run(args: string[]): Promise<void> {
  const o = parseOptions(args);
  const database = await createTestDatabase();
  let child: ReturnType<typeof Bun.spawn> | null = null;
  try {
    const sql = makeSql(database.url, { max: 2 });
    const keyOf = async (name: string) =>
      (await createKey(sql, { accountId: (await createAccount(sql, { name })).id, scope: "api" })).secret;
    const [flooder, neighbour] = [await keyOf("flooder"), await keyOf("neighbour")];
    await sql.end();

    let ready: (message: { port: number }) => void = () => {};
    const started = new Promise<{ port: number }>((resolve) => (ready = resolve));
    const api = Bun.spawn([process.execPath, import.meta.path, "--serve", database.url, String(o.rate), String(o["hold-ms"])], {
      stdout: "inherit",
      stderr: "inherit",
      ipc: (m) => ready(m as { port: number }),
    });
    child = api;
    const { port } = await started;
    const url = `http://127.0.0.1:${port}/api/v1/mailboxes`;
    const loadBefore = loadAverage();

    // The other key behaves: half its limit, paced (open loop), so it is never limited itself.
    const polite = Math.max(1, Math.floor(o.rate / 2));
    // Warm-up of both paths (admitted and refused): the first seconds of a fresh process spend
    // about twice the CPU per request on compiling. The neighbour's three seconds after the flood
    // also let the flooding key's bucket fill up again.
    await floodFromChild(url, flooder, o["flood-connections"], 1);
    await load(url, neighbour, o.connections, 3, polite);
    const [alone, aloneCpu] = await withApiCpu(api.pid, o.duration, async () =>
      summary(await load(url, neighbour, o.connections, o.duration, polite)),
    );
    const [[flood, shared], sharedCpu] = await withApiCpu(api.pid, o.duration, () =>
      Promise.all([
        floodFromChild(url, flooder, o["flood-connections"], o.duration),
        load(url, neighbour, o.connections, o.duration, polite).then(summary),
      ]),
    );
    // The same again with nobody flooding: how far the machine itself moved meanwhile.
    const [after, afterCpu] = await withApiCpu(api.pid, o.duration, async () =>
      summary(await load(url, neighbour, o.connections, o.duration, polite)),
    );

    const allowed = flood.ok;
    // Its rate for the whole run, one full burst, and the chunk the API process may have leased before.
    const ceiling = o.rate * o.duration + o.rate + leaseChunk({ perSecond: o.rate, burst: o.rate });
    // Against the better of the two unloaded phases: the machine's own noise must not count for us.
    const ratio = shared.p99 / Math.max(1, Math.min(alone.p99, after.p99));
    const row = (name: string, x: Summary, cpu: number | null) =>
      `${name.padEnd(34)}${x.rps.toFixed(0).padStart(9)}${String(x.ok).padStart(8)}${String(x.refused).padStart(8)}${String(x.p50).padStart(8)}${String(x.p99).padStart(8)}${(cpu === null ? "" : cpu.toFixed(0)).padStart(14)}`;
    console.log(
      [
        "",
        `Per-key rate limit ${o.rate}/s (burst ${o.rate}), refusal hold ${o["hold-ms"]} ms; ${o.duration} s; the flooding key on ${o["flood-connections"]} connections (its own process), the other key on ${o.connections} at ${polite} req/s.`,
        `load average before: ${loadBefore}; after: ${loadAverage()}`,
        "",
        `${"".padEnd(34)}${"req/s".padStart(9)}${"2xx".padStart(8)}${"429".padStart(8)}${"p50 ms".padStart(8)}${"p99 ms".padStart(8)}${"API CPU ms/s".padStart(14)}`,
        row("other key, nobody flooding", alone, aloneCpu),
        row("other key, while flooding", shared, sharedCpu),
        row("flooding key", flood, null),
        row("other key, nobody flooding again", after, afterCpu),
        "",
        `flooding key: ${allowed} answered 2xx in ${o.duration} s (${(allowed / o.duration).toFixed(1)}/s; ceiling rate × duration + burst + one chunk = ${ceiling}): ${allowed <= ceiling ? "held" : "NOT held"}`,
        `other key p99 while flooding / the lower unloaded p99: ${ratio.toFixed(2)}x (target ≤ 1.5x); the two unloaded p99s: ${alone.p99} and ${after.p99} ms`,
        "",
      ].join("\n"),
    );
    if (shared.refused > 0 || alone.refused > 0 || after.refused > 0) throw new Error("the other key was refused: not comparable");
  } finally {
    if (child) {
      child.kill();
      await child.exited;
    }
    await database.drop();
  }
}

/** The flooding client (`--flood url key connections duration`): a closed loop, reporting to its parent. */
async function floodChild(url: string, key: string, connections: number, duration: number): Promise<void> {
  process.send?.(summary(await load(url, key, connections, duration)));
  process.exit(0);
}

if (import.meta.main && process.argv[2] === "--serve") await serve(process.argv[3]!, process.argv[4]!, process.argv[5]!);
if (import.meta.main && process.argv[2] === "--flood")
  await floodChild(process.argv[3]!, process.argv[4]!, Number(process.argv[5]), Number(process.argv[6]));
