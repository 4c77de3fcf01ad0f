// A fresh database per test file, cloned from a template that has every migration applied.
// Uses DATABASE_URL when set, otherwise starts the embedded Postgres once per test process.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { randomBase32 } from "../../src/core/ids.ts";
import { type EmbeddedDatabase, makeSql, migrate, migrationFiles, startEmbeddedPostgres } from "../../src/db.ts";
import { sha256Hex } from "../../src/secrets.ts";
import { atRunEnd } from "./run-end.ts";
import { freePort } from "./smtp-client.ts";

let serverUrl: Promise<string> | null = null;
let templateName: Promise<string> | null = null;

function server(): Promise<string> {
  serverUrl ??= (async () => {
    const configured = loadConfig().databaseUrl;
    if (configured) return configured;
    const dir = mkdtempSync(join(tmpdir(), "mailbox-test-pg-"));
    // mkdtemp makes it 0700; run as root, embedded Postgres initialises as the "postgres" user,
    // which must be able to enter it.
    chmodSync(dir, 0o755);
    const db = await startEmbeddedPostgres(dir, await freePort(), () => {}, { maxConnections: 400 });
    stopOnExit(db, dir);
    return db.url;
  })();
  return serverUrl;
}

/** The server started for this test process is stopped, and its folder removed, however the process ends. */
function stopOnExit(db: EmbeddedDatabase, dir: string): void {
  atRunEnd({
    sync: () => {
      db.stopSync();
      rmSync(dir, { recursive: true, force: true });
    },
    graceful: async () => {
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

export function urlFor(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

async function template(): Promise<string> {
  templateName ??= (async () => {
    const base = await server();
    const digest = (
      await sha256Hex(
        migrationFiles()
          .map((file) => readFileSync(file.path, "utf8"))
          .join("\n"),
      )
    ).slice(0, 12);
    const name = `mailbox_template_${digest}`;
    const admin = makeSql(base, { max: 1 });
    const conn = await admin.reserve();
    try {
      // Several test processes may start at once; one builds the template, the others wait.
      await conn`select pg_advisory_lock(7351002)`;
      const [exists] = await conn`select 1 from pg_database where datname = ${name}`;
      if (!exists) {
        await conn.unsafe(`drop database if exists ${name}_building with (force)`);
        await conn.unsafe(`create database ${name}_building`);
        await migrate(urlFor(base, `${name}_building`));
        await conn.unsafe(`alter database ${name}_building rename to ${name}`);
      }
      await conn`select pg_advisory_unlock(7351002)`;
    } finally {
      conn.release();
      await admin.end();
    }
    return name;
  })();
  return templateName;
}

export type TestDatabase = { url: string; drop(): Promise<void> };

export async function createTestDatabase(): Promise<TestDatabase> {
  const base = await server();
  const source = await template();
  const name = `test_${randomBase32(12)}`;
  const admin = makeSql(base, { max: 1 });
  try {
    await admin.unsafe(`create database ${name} template ${source}`);
  } finally {
    await admin.end();
  }
  const drop = async () => {
    forget();
    const dropper = makeSql(base, { max: 1 });
    try {
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
    } finally {
      await dropper.end();
    }
  };
  // A file that failed before its afterAll still leaves no database behind on the shared server.
  const forget = atRunEnd({ sync: () => {}, graceful: drop });
  return { url: urlFor(base, name), drop };
}
