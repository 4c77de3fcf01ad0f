// Overload: one key floods GET /api/v1/mailboxes while another key makes ordinary requests. The
// flooding key must be held to its rate (RATE_LIMIT_PER_SECOND plus its burst), answered 429 past
// it, while the other key's p99 stays within 1.5× of its p99 with nobody flooding.
//
//   bun run bench ratelimit [--duration 8] [--rate 50] [--flood-connections 20] [--connections 2]
//
// The API runs in a child process; autocannon drives both keys from this one.
import autocannon, { type Result } from "autocannon";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { makeSql } from "../src/db.ts";
import { createAccount } from "../src/core/accounts.ts";
import { createKey } from "../src/core/keys.ts";
import { makeServices } from "../src/core/services.ts";
import { makeTransport } from "../src/delivery/index.ts";
import { makeApp } from "../src/http/app.ts";
import { startHttpServer } from "../src/http/server.ts";
import { makeLogger } from "../src/log.ts";
import { makeResolver } from "../src/mail/resolver.ts";
import { createTestDatabase } from "../test/support/database.ts";

type Options = { duration: number; rate: number; "flood-connections": number; connections: number };

function parseOptions(args: string[]): Options {
  const options: Options = { duration: 8, rate: 50, "flood-connections": 20, connections: 2 };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    const name = flag?.slice(2) as keyof Options;
    if (flag?.startsWith("--") && name in options && value && /^\d+$/.test(value) && Number(value) > 0) options[name] = Number(value);
    else
      throw new Error(
        `usage: bun run bench ratelimit [--duration S] [--rate N] [--flood-connections N] [--connections N]; bad argument ${flag}`,
      );
  }
  if (options.duration > 20) throw new Error("--duration at most 20 s");
  return options;
}

async function serve(databaseUrl: string, rate: string): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    HOST: "127.0.0.1",
    HTTP_PORT: "0",
    LOG_LEVEL: "warn",
    INBOUND_AUTH_MODE: "off",
    RATE_LIMIT_PER_SECOND: rate,
    RATE_LIMIT_BURST: rate,
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
    child = Bun.spawn([process.execPath, import.meta.path, "--serve", database.url, String(o.rate)], {
      stdout: "inherit",
      stderr: "inherit",
      ipc: (m) => ready(m as { port: number }),
    });
    const { port } = await started;
    const url = `http://127.0.0.1:${port}/api/v1/mailboxes`;

    // The other key behaves: half its limit, paced (open loop), so it is never limited itself.
    const polite = Math.max(1, Math.floor(o.rate / 2));
    await load(url, neighbour, o.connections, 1, polite); // warm-up
    const alone = await load(url, neighbour, o.connections, o.duration, polite);
    const [flood, shared] = await Promise.all([
      load(url, flooder, o["flood-connections"], o.duration),
      load(url, neighbour, o.connections, o.duration, polite),
    ]);

    const allowed = flood["2xx"];
    const ceiling = o.rate * o.duration + o.rate; // its rate for the whole run plus one full burst
    const ratio = shared.latency.p99 / Math.max(1, alone.latency.p99);
    console.log(
      [
        "",
        `Per-key rate limit ${o.rate}/s (burst ${o.rate}); ${o.duration} s; the flooding key on ${o["flood-connections"]} connections, the other key on ${o.connections} at ${Math.max(1, Math.floor(o.rate / 2))} req/s.`,
        "",
        `${"".padEnd(34)}${"req/s".padStart(9)}${"2xx".padStart(8)}${"429".padStart(8)}${"p50 ms".padStart(8)}${"p99 ms".padStart(8)}`,
        ...[
          ["other key, nobody flooding", alone],
          ["other key, while flooding", shared],
          ["flooding key", flood],
        ].map(([name, r]) => {
          const x = r as Result;
          return `${(name as string).padEnd(34)}${x.requests.average.toFixed(0).padStart(9)}${String(x["2xx"]).padStart(8)}${String(x.non2xx).padStart(8)}${String(x.latency.p50).padStart(8)}${String(x.latency.p99).padStart(8)}`;
        }),
        "",
        `flooding key: ${allowed} answered 2xx in ${o.duration} s (${(allowed / o.duration).toFixed(1)}/s; ceiling rate × duration + burst = ${ceiling}): ${allowed <= ceiling ? "held" : "NOT held"}`,
        `other key p99 while flooding / alone: ${ratio.toFixed(2)}x (target ≤ 1.5x)`,
        "",
      ].join("\n"),
    );
    if (shared.non2xx > 0 || alone.non2xx > 0) throw new Error("the other key was refused: not comparable");
  } finally {
    if (child) {
      child.kill();
      await child.exited;
    }
    await database.drop();
  }
}

if (import.meta.main && process.argv[2] === "--serve") await serve(process.argv[3]!, process.argv[4]!);
