// GET /api/v1/mailboxes through the real app (Bun.serve, request log, auth macro, validation)
// against bare Elysia routes on the same pool: the same SQL with no auth, and the key look-up plus
// the same SQL; and the same list through MCP (POST /mcp, tools/call list_mailboxes: a JSON-RPC
// server per request, stateless). One account, one key, 20 mailboxes; autocannon on loopback.
//
//   bun run bench mailboxes [--duration 10] [--warmup 2] [--connections 10] [--slices 5] [--log-level info] [--rate-limit N]
//   bun run bench mailboxes --profile DIR [--duration 10] …
//
// --profile DIR loads our route, then the bare route, each in a server process of its own run with
// `bun --cpu-prof-md`, and leaves one Markdown CPU profile per target in DIR (ours.md, bare.md)
// instead of printing req/s: where each spends its time under the same load.
//
// --rate-limit N turns the per-key limit on at N/s (burst 10 × N, so no request is refused): the
// API then leases tokens from PostgreSQL in chunks of N/10 (src/request/rate-limit.ts); 0, the
// default, turns it off.
//
// The servers run in a child process (one event loop, as in production) so that the load
// generator does not share their CPU time slices; the database is a fresh one, dropped after.
import autocannon, { type Result } from "autocannon";
import { Elysia } from "elysia";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { makeSql } from "../src/db.ts";
import { createAccount } from "../src/core/accounts.ts";
import { createKey } from "../src/core/keys.ts";
import { createMailbox } from "../src/core/mailboxes.ts";
import { makeServices } from "../src/core/services.ts";
import { makeTransport } from "../src/delivery/index.ts";
import { makeApp } from "../src/http/app.ts";
import { authenticate } from "../src/request/auth.ts";
import { startHttpServer } from "../src/http/server.ts";
import { makeLogger } from "../src/log.ts";
import { makeResolver } from "../src/mail/resolver.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { apiPrincipal } from "./support/principal.ts";

const MAILBOXES = 20;
const LIST_LIMIT = 100; // the route's default

type Ports = { ours: number; bare: number; bareAuth: number };
type Options = {
  duration: number;
  warmup: number;
  connections: number;
  slices: number;
  logLevel: string;
  rateLimit: number;
  profile: string | null;
};

function parseOptions(args: string[]): Options {
  const options: Options = { duration: 10, warmup: 2, connections: 10, slices: 5, logLevel: "info", rateLimit: 0, profile: null };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--log-level" && value) options.logLevel = value;
    else if (flag === "--profile" && value) options.profile = value;
    else if (flag === "--rate-limit" && value && /^\d+$/.test(value)) options.rateLimit = Number(value);
    else if (["--duration", "--warmup", "--connections", "--slices"].includes(flag!) && value && /^\d+$/.test(value)) {
      options[flag!.slice(2) as "duration" | "warmup" | "connections" | "slices"] = Number(value);
    } else {
      throw new Error(
        `usage: bun run bench mailboxes [--duration S] [--warmup S] [--connections N] [--log-level L] [--rate-limit N] [--slices N] [--profile DIR]; bad argument ${flag}`,
      );
    }
  }
  // Four targets, each warmed up then measured: keep the whole run under a minute.
  if (4 * (options.duration + options.warmup) > 50) throw new Error("4 × (duration + warmup) must stay within 50 s");
  if (options.slices < 1 || options.duration / options.slices < 1) throw new Error("each slice must last at least 1 s");
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
    select id, address, display_name, created_at from mailboxes
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
  process.send?.(ports);
  // The parent asks for this process's CPU time before and after each target's load.
  process.on("message", (message) => {
    if (message === "cpu") {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpuMicros: user + system });
    }
  });
}

type Target = { name: string; url: string; body?: string };

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

type Summary = { rps: number; p50: number; p99: number; non2xx: number; errors: number; cpuPerRequest: number };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function summarize(runs: Result[], cpuMicros: number): Summary {
  const answered = runs.reduce((sum, r) => sum + r["2xx"] + r.non2xx, 0);
  const seconds = runs.reduce((sum, r) => sum + r.duration, 0);
  return {
    rps: answered / Math.max(seconds, 1e-9),
    p50: median(runs.map((r) => r.latency.p50)),
    p99: median(runs.map((r) => r.latency.p99)),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    cpuPerRequest: cpuMicros / Math.max(1, answered),
  };
}

type Servers = { ports: Promise<Ports>; cpuMicros(): Promise<number>; stop(): Promise<void> };

/** The servers' child process; bunFlags go before the script (e.g. the CPU profiler's). */
function startServers(options: Options, databaseUrl: string, accountId: string, bunFlags: string[]): Servers {
  let ready!: (ports: Ports) => void;
  const portsReady = new Promise<Ports>((resolve) => (ready = resolve));
  let cpuAnswer: ((micros: number) => void) | null = null;
  const child = Bun.spawn(
    [process.execPath, ...bunFlags, import.meta.path, "--serve", databaseUrl, accountId, options.logLevel, String(options.rateLimit)],
    {
      stdout: "ignore", // the request log: written, as in production, but not kept
      stderr: "inherit",
      ipc: (message) => {
        if (typeof message?.cpuMicros === "number") cpuAnswer?.(message.cpuMicros);
        else ready(message as Ports);
      },
    },
  );
  const ports = Promise.race([portsReady, Bun.sleep(15000).then(() => Promise.reject(new Error("servers did not start within 15 s")))]);
  return {
    ports,
    cpuMicros: () =>
      new Promise<number>((resolve) => {
        cpuAnswer = resolve;
        child.send("cpu");
      }),
    async stop() {
      // SIGTERM: the child exits normally, so that a profiler started with it writes its file.
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

/** One server process per target under the profiler, loaded as in a measured run. */
async function profileTargets(options: Options, dir: string, databaseUrl: string, accountId: string, key: string): Promise<void> {
  for (const [name, path] of [
    ["ours", "/api/v1/mailboxes"],
    ["bare", "/bare/mailboxes"],
  ] as const) {
    const servers = startServers(options, databaseUrl, accountId, ["--cpu-prof-md", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.md`]);
    try {
      const ports = await servers.ports;
      const target = { name, url: `http://127.0.0.1:${name === "ours" ? ports.ours : ports.bare}${path}` };
      if (options.warmup > 0) await measure(target, key, options, options.warmup);
      const result = await measure(target, key, options, options.duration);
      console.log(
        `${name}: ${fixed(result.requests.average, 0)} req/s under the profiler, p99 ${result.latency.p99} ms → ${join(dir, `${name}.md`)}`,
      );
    } finally {
      await servers.stop();
    }
  }
}

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const started = performance.now();
  const database = await createTestDatabase();
  let child: Servers | null = null;
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

    if (options.profile) return await profileTargets(options, options.profile, database.url, account.id, secret);
    child = startServers(options, database.url, account.id, []);
    const ports = await child.ports;
    const targets: Target[] = [
      { name: "ours: GET /api/v1/mailboxes", url: `http://127.0.0.1:${ports.ours}/api/v1/mailboxes` },
      { name: "bare: same SQL, no auth", url: `http://127.0.0.1:${ports.bare}/bare/mailboxes` },
      { name: "bare: key look-up + same SQL", url: `http://127.0.0.1:${ports.bareAuth}/bare-auth/mailboxes` },
      { name: "ours: MCP list_mailboxes", url: `http://127.0.0.1:${ports.ours}/mcp`, body: MCP_CALL },
    ];

    // All three must do the same work: the same 20 mailboxes, byte for byte.
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

    // Round-robin in slices: every target is warmed up first, then each is measured in `slices`
    // short runs taken in turn, each slice's order rotated, so that load that comes and goes on a
    // shared machine (and the servers' own warming) falls on every target alike instead of on
    // whichever happened to run first. A target's req/s is all its answers over all its time;
    // p50 and p99 are the medians of its slices'.
    for (const target of targets) if (options.warmup > 0) await measure(target, secret, options, options.warmup);
    const slices: Result[][] = targets.map(() => []);
    const cpuMicros = targets.map(() => 0);
    const seconds = options.duration / options.slices;
    for (let slice = 0; slice < options.slices; slice++) {
      for (let k = 0; k < targets.length; k++) {
        const i = (k + slice) % targets.length;
        // The servers' CPU time per request answered: what each path costs, less sensitive than
        // req/s to other work on the machine (the database's own CPU is not in it; the SQL is the same).
        const cpuBefore = await child.cpuMicros();
        slices[i]!.push(await measure(targets[i]!, secret, options, seconds));
        cpuMicros[i]! += (await child.cpuMicros()) - cpuBefore;
      }
    }
    const results = slices.map((runs, i) => summarize(runs, cpuMicros[i]!));
    const [ours, bare, bareAuth, mcp] = results as [Summary, Summary, Summary, Summary];

    const lines = [
      "",
      `GET /api/v1/mailboxes (${MAILBOXES} mailboxes, ${bodies[0]!.length} B body); autocannon, ${options.connections} connections, ` +
        `${options.duration} s each in ${options.slices} round-robin slices after ${options.warmup} s warm-up, loopback; request log level ${options.logLevel}; ` +
        (options.rateLimit > 0
          ? `rate limit ${options.rateLimit}/s (burst ${options.rateLimit * 10}, leased from PostgreSQL)`
          : "rate limit off"),
      "",
      `${"target".padEnd(32)}${"req/s".padStart(10)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"non-2xx".padStart(9)}${"errors".padStart(8)}${"CPU µs/req".padStart(12)}`,
      ...targets.map((target, i) => {
        const r = results[i]!;
        return `${target.name.padEnd(32)}${fixed(r.rps, 0).padStart(10)}${fixed(r.p50).padStart(9)}${fixed(r.p99).padStart(9)}${String(r.non2xx).padStart(9)}${String(r.errors).padStart(8)}${fixed(r.cpuPerRequest, 0).padStart(12)}`;
      }),
      "",
      `ours / bare (no auth):       req/s ${fixed(ours.rps / bare.rps)}   p50 ${fixed(ours.p50 / bare.p50)}x   p99 ${fixed(ours.p99 / bare.p99)}x   server CPU per request ${fixed(ours.cpuPerRequest / bare.cpuPerRequest)}x`,
      `ours / bare (key look-up):   req/s ${fixed(ours.rps / bareAuth.rps)}   p50 ${fixed(ours.p50 / bareAuth.p50)}x   p99 ${fixed(ours.p99 / bareAuth.p99)}x`,
      `MCP / ours (same list):      req/s ${fixed(mcp.rps / ours.rps)}   p50 ${fixed(mcp.p50 / ours.p50)}x   p99 ${fixed(mcp.p99 / ours.p99)}x`,
      `total time ${fixed((performance.now() - started) / 1000, 1)} s`,
      "",
    ];
    console.log(lines.join("\n"));
    if (results.some((r) => r.non2xx > 0 || r.errors > 0)) throw new Error("some requests failed: the figures above are not comparable");
  } finally {
    if (child) await child.stop();
    await database.drop();
  }
}

if (import.meta.main && process.argv[2] === "--serve") {
  // Exit normally on SIGTERM, so that `bun --cpu-prof-md` writes its profile (--profile).
  process.on("SIGTERM", () => process.exit(0));
  await serve(process.argv[3]!, process.argv[4]!, process.argv[5] ?? "info", Number(process.argv[6] ?? "0"));
}
