// GET /api/v1/mailboxes through the real app (Bun.serve, request log, auth macro, validation)
// against bare Elysia routes on the same pool: the same SQL with no auth, and the key look-up plus
// the same SQL; and the same list through MCP (POST /mcp, tools/call list_mailboxes, on pooled
// servers). One account, one key, 20 mailboxes; autocannon on loopback.
//
//   npm run bench -- mailboxes [--duration 10] [--warmup 2] [--connections 10] [--log-level info] [--rate-limit N]
//                           [--only ours,mcp] [--rounds 5] [--cpu-prof DIR]
//
// --only runs a subset of the targets (ours, bare, bare-auth, mcp; ratios need their two).
// --rounds N measures the targets in turn N times (duration/N each, the order rotated each round,
// the warm-up only before the first): on a shared machine whose load drifts, each target then sees the same mix of quiet and
// busy moments. req/s is over all rounds, p50 and p99 the median of the rounds'.
// "server CPU" is the servers' process's own CPU time (user + system) per answered request,
// which the other processes on the machine do not change much: the cost of one request.
// --cpu-prof DIR runs the servers' process under `bun --cpu-prof-md` and writes its profile
// (a Markdown table of self and total time by function) into DIR when the run ends: with
// `--only mcp` or `--only ours` it shows where one kind of request spends its time.
//
// --rate-limit N turns the per-key limit on at N/s (burst 10 × N, so no request is refused): the
// API then leases tokens from PostgreSQL in chunks of N/10 (src/request/rate-limit.ts); 0, the
// default, turns it off.
//
// The servers run in a child process (one event loop, as in production) so that the load
// generator does not share their CPU time slices; the database is a fresh one, dropped after.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon, { type Result } from "autocannon";
import { Elysia } from "elysia";
import { loadConfig } from "../src/config.ts";
import { createAccount } from "../src/core/accounts/accounts.ts";
import { createKey } from "../src/core/accounts/keys.ts";
import { createMailbox } from "../src/core/mailboxes.ts";
import { makeServices } from "../src/core/services.ts";
import { makeSql } from "../src/db.ts";
import { makeTransport } from "../src/delivery/index.ts";
import { makeApp } from "../src/http/app.ts";
import { startHttpServer } from "../src/http/server.ts";
import { makeLogger } from "../src/log.ts";
import { makeResolver } from "../src/mail/resolver.ts";
import { authenticate } from "../src/request/auth.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { apiPrincipal } from "./support/principal.ts";

const MAILBOXES = 20;
const LIST_LIMIT = 100; // the route's default

type Ports = { ours: number; bare: number; bareAuth: number };
const TARGET_NAMES = ["ours", "bare", "bare-auth", "mcp"] as const;
type TargetName = (typeof TARGET_NAMES)[number];
type Options = {
  duration: number;
  warmup: number;
  connections: number;
  logLevel: string;
  rateLimit: number;
  only: TargetName[];
  rounds: number;
  cpuProfDir: string | null;
};

function parseOptions(args: string[]): Options {
  const options: Options = {
    duration: 10,
    warmup: 2,
    connections: 10,
    logLevel: "info",
    rateLimit: 0,
    only: [...TARGET_NAMES],
    rounds: 5,
    cpuProfDir: null,
  };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--log-level" && value) options.logLevel = value;
    else if (flag === "--cpu-prof" && value) options.cpuProfDir = value;
    else if (flag === "--only" && value && value.split(",").every((n) => (TARGET_NAMES as readonly string[]).includes(n))) {
      options.only = value.split(",") as TargetName[];
    } else if (flag === "--rate-limit" && value && /^\d+$/.test(value)) options.rateLimit = Number(value);
    else if (
      (flag === "--duration" || flag === "--warmup" || flag === "--connections" || flag === "--rounds") &&
      value &&
      /^\d+$/.test(value)
    ) {
      options[flag.slice(2) as "duration" | "warmup" | "connections" | "rounds"] = Number(value);
    } else {
      throw new Error(
        `usage: npm run bench -- mailboxes [--duration S] [--warmup S] [--connections N] [--log-level L] [--rate-limit N] [--only ${TARGET_NAMES.join(",")}] [--rounds N] [--cpu-prof DIR]; bad argument ${flag}`,
      );
    }
  }
  if (options.rounds < 1 || options.duration % options.rounds !== 0) throw new Error("--rounds must divide --duration");
  // Each target warmed up then measured: keep the whole run under a minute.
  if (options.only.length * (options.duration + options.warmup) > 50)
    throw new Error("targets × (duration + warmup) must stay within 50 s");
  return options;
}

/** The child: all three servers on loopback, sharing one postgres.js pool. */
async function serve(databaseUrl: string, accountId: string, logLevel: string, rateLimit: number): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    HOST: "127.0.0.1",
    HTTP_PORT: "0",
    LOG_LEVEL: logLevel,
    INBOUND_AUTH_MODE: "off",
    // One key drives the whole load: off by default, the per-key rate limit would measure itself
    // (bench ratelimit does); --rate-limit N measures its cost with no request refused.
    RATE_LIMIT_PER_SECOND: String(rateLimit),
    RATE_LIMIT_BURST: String(Math.max(1, rateLimit * 10)),
    DATA_DIR: mkdtempSync(join(tmpdir(), "bench-data-")),
  });
  const sql = makeSql(databaseUrl, { max: 10 });
  const svc = makeServices(
    { sql, config, log: makeLogger(config.logLevel), resolve: makeResolver({ servers: ["127.0.0.1:9"], timeoutMs: 100 }) },
    makeTransport,
  );
  const ours = startHttpServer(svc, makeApp(svc));

  // The same statement listMailboxes runs, written out: the baseline is the SQL and nothing else.
  const list = (account: string, mailboxId: string | null) => sql`
    select id, address, display_name, created_at, paused_at is not null as paused from mailboxes
    where account_id = ${account}
      and (${mailboxId}::text is null or id = ${mailboxId})
    order by created_at desc, id desc
    limit ${LIST_LIMIT}`;
  const bare = new Elysia().get("/bare/mailboxes", async () => ({ mailboxes: await list(accountId, null) }));
  const bareAuth = new Elysia().get("/bare-auth/mailboxes", async ({ request }) => {
    const principal = await authenticate(sql, request.headers.get("authorization"));
    return { mailboxes: await list(principal.accountId, principal.mailboxId) };
  });
  const bareServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: bare.fetch });
  const bareAuthServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: bareAuth.fetch });

  const ports: Ports = { ours: ours.port, bare: bareServer.port!, bareAuth: bareAuthServer.port! };
  // "exit" ends the process normally, so that `bun --cpu-prof-md` writes its profile; "cpu" asks
  // for the process's CPU time so far.
  process.on("message", (message) => {
    if (message === "exit") process.exit(0);
    if (message === "cpu") process.send?.({ cpu: process.cpuUsage() });
  });
  process.send?.(ports);
}

type Target = { id: TargetName; name: string; url: string; body?: string };

/** One target over all rounds. */
type Measured = {
  requests: number;
  seconds: number;
  p50s: number[];
  p99s: number[];
  cpuMicros: number;
  /** the lowest CPU per request of any round: the least disturbed by other processes */
  bestCpuPerRequest: number;
  non2xx: number;
  errors: number;
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const perSecond = (m: Measured) => m.requests / m.seconds;
const cpuPerRequest = (m: Measured) => m.cpuMicros / m.requests;

const MCP_CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_mailboxes", arguments: {} } });
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function measure(target: Target, key: string, options: Options, seconds: number): Promise<Result> {
  const headers = { authorization: `Bearer ${key}`, ...(target.body ? MCP_HEADERS : {}) };
  const method = target.body ? "POST" : "GET";
  return autocannon({
    url: target.url,
    method,
    body: target.body,
    connections: options.connections,
    duration: seconds,
    headers,
    timeout: 10,
  });
}

// The MCP answer must carry the same list the HTTP route returns.
async function mcpListBody(url: string, key: string): Promise<string> {
  const response = await fetch(url, { method: "POST", body: MCP_CALL, headers: { authorization: `Bearer ${key}`, ...MCP_HEADERS } });
  if (response.status !== 200) throw new Error(`MCP answered ${response.status}`);
  const reply = (await response.json()) as { result?: { structuredContent?: unknown; isError?: boolean } };
  if (!reply.result || reply.result.isError) throw new Error(`MCP tools/call failed: ${JSON.stringify(reply).slice(0, 300)}`);
  return JSON.stringify(reply.result.structuredContent);
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const started = performance.now();
  const database = await createTestDatabase();
  let child: ReturnType<typeof Bun.spawn> | null = null;
  try {
    const sql = makeSql(database.url, { max: 2 });
    const account = await createAccount(sql, { name: "bench" });
    const { key, secret } = await createKey(sql, { accountId: account.id, scope: "api" });
    const principal = apiPrincipal(key.id, account.id);
    const fixturesConfig = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent" });
    for (let i = 0; i < MAILBOXES; i++) {
      await createMailbox({ sql, config: fixturesConfig, log: makeLogger("silent") } as never, principal, {
        slug: `bench-${i}`,
        display_name: `Bench ${i}`,
      });
    }
    await sql.end();

    let ready!: (ports: Ports) => void;
    const portsReady = new Promise<Ports>((resolve) => (ready = resolve));
    const cpuWaiters: ((cpu: NodeJS.CpuUsage) => void)[] = [];
    const profile = options.cpuProfDir ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${options.cpuProfDir}`] : [];
    child = Bun.spawn(
      [process.execPath, ...profile, import.meta.path, "--serve", database.url, account.id, options.logLevel, String(options.rateLimit)],
      {
        stdout: "ignore", // the request log: written, as in production, but not kept
        stderr: "inherit",
        ipc: (message) => {
          if (message && typeof message === "object" && "cpu" in message) cpuWaiters.shift()?.((message as { cpu: NodeJS.CpuUsage }).cpu);
          else ready(message as Ports);
        },
      },
    );
    const ports = await Promise.race([
      portsReady,
      Bun.sleep(15000).then(() => Promise.reject(new Error("servers did not start within 15 s"))),
    ]);

    const targets: Target[] = (
      [
        { id: "ours", name: "ours: GET /api/v1/mailboxes", url: `http://127.0.0.1:${ports.ours}/api/v1/mailboxes` },
        { id: "bare", name: "bare: same SQL, no auth", url: `http://127.0.0.1:${ports.bare}/bare/mailboxes` },
        { id: "bare-auth", name: "bare: key look-up + same SQL", url: `http://127.0.0.1:${ports.bareAuth}/bare-auth/mailboxes` },
        { id: "mcp", name: "ours: MCP list_mailboxes", url: `http://127.0.0.1:${ports.ours}/mcp`, body: MCP_CALL },
      ] satisfies Target[]
    ).filter((target) => options.only.includes(target.id));

    // All of them must do the same work: the same 20 mailboxes, byte for byte.
    const bodies = await Promise.all(
      targets.map(async (target) => {
        if (target.body) return mcpListBody(target.url, secret);
        const response = await fetch(target.url, { headers: { authorization: `Bearer ${secret}` } });
        if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}`);
        return response.text();
      }),
    );
    if (new Set(bodies).size !== 1 || JSON.parse(bodies[0]!).mailboxes.length !== MAILBOXES) {
      throw new Error("the targets do not return the same list of mailboxes");
    }

    const childCpu = () =>
      new Promise<NodeJS.CpuUsage>((resolve) => {
        cpuWaiters.push(resolve);
        child!.send("cpu");
      });
    const results: Measured[] = targets.map(() => ({
      requests: 0,
      seconds: 0,
      p50s: [],
      p99s: [],
      cpuMicros: 0,
      bestCpuPerRequest: Number.POSITIVE_INFINITY,
      non2xx: 0,
      errors: 0,
    }));
    const slice = options.duration / options.rounds;
    for (let round = 0; round < options.rounds; round++) {
      // The order rotates each round, so no target is always the one measured first (the one that
      // a drifting load hits hardest).
      for (let k = 0; k < targets.length; k++) {
        const i = (k + round) % targets.length;
        const target = targets[i]!;
        if (round === 0 && options.warmup > 0) await measure(target, secret, options, options.warmup);
        const before = await childCpu();
        const r = await measure(target, secret, options, slice);
        const after = await childCpu();
        const m = results[i]!;
        const requests = r.requests.total ?? r.requests.average * r.duration;
        const cpuMicros = after.user - before.user + after.system - before.system;
        m.requests += requests;
        m.bestCpuPerRequest = Math.min(m.bestCpuPerRequest, cpuMicros / Math.max(1, requests));
        m.seconds += r.duration;
        m.p50s.push(r.latency.p50);
        m.p99s.push(r.latency.p99);
        m.cpuMicros += cpuMicros;
        m.non2xx += r.non2xx;
        m.errors += r.errors + r.timeouts;
      }
    }

    const resultOf = (id: TargetName) => results[targets.findIndex((target) => target.id === id)];
    const [ours, bare, bareAuth, mcp] = TARGET_NAMES.map(resultOf);
    const ratio = (label: string, a: Measured | undefined, b: Measured | undefined) =>
      a && b
        ? [
            `${label.padEnd(29)}req/s ${fixed(perSecond(a) / perSecond(b))}   p50 ${fixed(median(a.p50s) / median(b.p50s))}x   ` +
              `p99 ${fixed(median(a.p99s) / median(b.p99s))}x   server CPU per request ${fixed(cpuPerRequest(a) / cpuPerRequest(b))}x` +
              (options.rounds > 1 ? ` (best rounds ${fixed(a.bestCpuPerRequest / b.bestCpuPerRequest)}x)` : ""),
          ]
        : [];
    const lines = [
      "",
      `GET /api/v1/mailboxes (${MAILBOXES} mailboxes, ${bodies[0]!.length} B body); autocannon, ${options.connections} connections, ` +
        `${options.duration} s each` +
        (options.rounds > 1 ? ` (${options.rounds} rounds of ${slice} s, in turn)` : "") +
        ` after ${options.warmup} s warm-up, loopback; request log level ${options.logLevel}; ` +
        (options.rateLimit > 0
          ? `rate limit ${options.rateLimit}/s (burst ${options.rateLimit * 10}, leased from PostgreSQL)`
          : "rate limit off"),
      "",
      `${"target".padEnd(32)}${"req/s".padStart(10)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"server CPU µs/req".padStart(19)}${(options.rounds > 1 ? "best round" : "").padStart(12)}${"non-2xx".padStart(9)}${"errors".padStart(8)}`,
      ...targets.map((target, i) => {
        const m = results[i]!;
        return (
          `${target.name.padEnd(32)}${fixed(perSecond(m), 0).padStart(10)}${fixed(median(m.p50s)).padStart(9)}${fixed(median(m.p99s)).padStart(9)}` +
          `${fixed(cpuPerRequest(m), 0).padStart(19)}${(options.rounds > 1 ? fixed(m.bestCpuPerRequest, 0) : "").padStart(12)}${String(m.non2xx).padStart(9)}${String(m.errors).padStart(8)}`
        );
      }),
      "",
      ...ratio("ours / bare (no auth):", ours, bare),
      ...ratio("ours / bare (key look-up):", ours, bareAuth),
      ...ratio("MCP / ours (same list):", mcp, ours),
      `total time ${fixed((performance.now() - started) / 1000, 1)} s`,
      "",
    ];
    console.log(lines.join("\n"));
    if (results.some((m) => m.non2xx > 0 || m.errors > 0)) throw new Error("some requests failed: the figures above are not comparable");
  } finally {
    if (child) {
      // Asked first, so that a profiled child writes its profile; killed if it does not end.
      child.send("exit");
      const ended = await Promise.race([child.exited.then(() => true), Bun.sleep(10000).then(() => false)]);
      if (!ended) {
        child.kill();
        await child.exited;
      }
    }
    await database.drop();
  }
}

if (import.meta.main && process.argv[2] === "--serve") {
  await serve(process.argv[3]!, process.argv[4]!, process.argv[5] ?? "info", Number(process.argv[6] ?? "0"));
}
