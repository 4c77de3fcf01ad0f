// SIGTERM with open event streams (SSE and WebSocket): the service (as `npm start` runs it, ROLES=api) ends every
// stream (the client reconnects elsewhere and resumes from its last id), then stops HTTP and
// exits 0, instead of waiting forever for streams that never finish by themselves.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createAccount } from "../../src/core/accounts/accounts.ts";
import { createKey } from "../../src/core/accounts/keys.ts";
import { makeSql, type Sql } from "../../src/db.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { openSse } from "../support/events.ts";
import { spawnService, waitForStarted } from "../support/service-process.ts";
import { freePort } from "../support/smtp-client.ts";

const root = new URL("../..", import.meta.url).pathname;
let database: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  database = await createTestDatabase();
  sql = makeSql(database.url, { max: 2 });
});
afterAll(async () => {
  await sql.end({ timeout: 5 });
  await database.drop();
});

test("SIGTERM ends open streams, then the process exits 0", async () => {
  const account = await createAccount(sql, { name: "drain", plan: "free" });
  const { secret } = await createKey(sql, { accountId: account.id, scope: "api" });
  const port = await freePort();
  const service = spawnService(process.execPath, ["src/main.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: database.url, ROLES: "api", HTTP_PORT: String(port), EVENT_HEARTBEAT_MS: "60000" },
  });
  const { child, exited } = service;
  try {
    await waitForStarted(service, 30_000);
    const streams = await Promise.all([1, 2, 3].map(() => openSse(`http://127.0.0.1:${port}/api/v1/events/stream`, secret)));
    expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200]);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v1/events/ws?access_token=${secret}`);
    const socketClosed = new Promise<number>((resolve) => socket.addEventListener("close", (event) => resolve(event.code)));
    await new Promise((resolve) => socket.addEventListener("open", resolve));
    await Bun.sleep(200);
    const signalledAt = performance.now();
    child.kill("SIGTERM");
    const ends = await Promise.all(streams.map((stream) => stream.ended));
    expect(ends).toEqual(["end", "end", "end"]);
    expect(streams.every((stream) => stream.comments.includes("server shutting down, reconnect to resume"))).toBe(true);
    // 1001 "going away": the client reconnects (elsewhere) with its last cursor.
    expect(await socketClosed).toBe(1001);
    expect(await exited).toBe(0);
    expect(performance.now() - signalledAt).toBeLessThan(10_000);
    expect(service.output).toContain('"service.stopped_part","part":"event streams"');
    expect(service.output).toContain('"service.stopped_part","part":"http"');
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}, 60_000);
