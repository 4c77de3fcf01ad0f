// Shared by the stream benchmarks (not a benchmark itself: no default export): the real service
// as `npm start` runs it, in a child process against a fresh database, with an account and key.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createAccount } from "../src/core/accounts/accounts.ts";
import { createKey } from "../src/core/accounts/keys.ts";
import { makeSql } from "../src/db.ts";
import { createTestDatabase } from "../test/support/database.ts";

export type BenchService = {
  pid: number;
  httpPort: number;
  smtpPort: number;
  databaseUrl: string;
  accountId: string;
  key: string;
  rssMb(): number;
  stop(): Promise<void>;
};

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Resident memory of a process in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Math.round(Number(match[1]) / 102.4) / 10 : NaN;
}

export function percentile(sorted: number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/**
 * `runtimeArgs` go to Bun before the script (e.g. `--cpu-prof`); with `onStdout` the service's
 * stdout (its JSON log) is handed over instead of shown; `checkout` runs the service of another
 * copy of the repository (an earlier commit, to compare with).
 */
export async function startBenchService(
  env: Record<string, string>,
  options: { runtimeArgs?: string[]; onStdout?: (stream: ReadableStream<Uint8Array>) => void; checkout?: string } = {},
): Promise<BenchService> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-stream-"));
  const sql = makeSql(database.url, { max: 2 });
  const account = await createAccount(sql, { name: "bench", plan: "paid" });
  const { secret } = await createKey(sql, { accountId: account.id, scope: "api" });
  await sql.end();
  const [httpPort, smtpPort] = [await freePort(), await freePort()];
  const child = Bun.spawn([process.execPath, ...(options.runtimeArgs ?? []), "src/main.ts"], {
    cwd: options.checkout ?? resolve(import.meta.dir, ".."),
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      HTTP_PORT: String(httpPort),
      SMTP_PORT: String(smtpPort),
      INBOUND_AUTH_MODE: "off",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdout: options.onStdout ? "pipe" : "inherit",
    stderr: "inherit",
  });
  if (options.onStdout) options.onStdout(child.stdout as ReadableStream<Uint8Array>);
  for (let waited = 0; ; waited += 100) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    if (waited > 60_000) throw new Error("the service did not start");
    const ok = await fetch(`http://127.0.0.1:${httpPort}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await Bun.sleep(100);
  }
  return {
    pid: child.pid,
    httpPort,
    smtpPort,
    databaseUrl: database.url,
    accountId: account.id,
    key: secret,
    rssMb: () => rssMb(child.pid),
    async stop() {
      child.kill("SIGTERM");
      await Promise.race([child.exited, Bun.sleep(15_000)]);
      if (child.exitCode === null) child.kill("SIGKILL");
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
