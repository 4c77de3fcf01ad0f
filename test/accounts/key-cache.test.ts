// The API-key cache (src/core/accounts/key-cache.ts) with two app instances over one database, as two API
// processes would run: a key revoked elsewhere (a third connection, like the CLI) stops working on
// both as soon as the NOTIFY arrives, and while the LISTEN connection is down the cache is bypassed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { keyCacheStatus, stopKeyCache } from "../../src/core/accounts/key-cache.ts";
import { makeServices } from "../../src/core/services.ts";
import { makeSql, type Sql } from "../../src/db.ts";
import { makeTransport } from "../../src/delivery/index.ts";
import { makeApp } from "../../src/http/app.ts";
import { makeLogger } from "../../src/log.ts";
import { makeResolver } from "../../src/mail/resolver.ts";
import { makeAccount, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let sqlB: Sql;
let other: Sql; // neither instance: stands for another process (the CLI, a second host)
let appB: ReturnType<typeof makeApp>;

beforeAll(async () => {
  ctx = await makeTestContext();
  sqlB = makeSql(ctx.config.databaseUrl!, { max: 4 });
  other = makeSql(ctx.config.databaseUrl!, { max: 1 });
  appB = makeApp(
    makeServices(
      { sql: sqlB, config: ctx.config, log: makeLogger("silent"), resolve: makeResolver({ servers: ["127.0.0.1:9"], timeoutMs: 100 }) },
      makeTransport,
    ),
  );
});

afterAll(async () => {
  await stopKeyCache(sqlB);
  await sqlB.end({ timeout: 5 });
  await other.end({ timeout: 5 });
  await ctx.close();
});

const listOn = async (app: ReturnType<typeof makeApp>, key: string) =>
  (await app.handle(new Request("http://localhost/api/v1/mailboxes", { headers: { authorization: `Bearer ${key}` } }))).status;

async function until(condition: () => boolean, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await Bun.sleep(2);
  }
  return performance.now() - started;
}

test("a key revoked by another process stops working on both instances as the notification lands", async () => {
  const owner = await makeAccount(ctx);
  // Both instances have the key cached.
  expect(await listOn(ctx.app, owner.key)).toBe(200);
  expect(await listOn(appB, owner.key)).toBe(200);
  await until(() => keyCacheStatus(ctx.sql).listening && keyCacheStatus(sqlB).listening, 20_000);
  expect(await listOn(ctx.app, owner.key)).toBe(200);
  expect(await listOn(appB, owner.key)).toBe(200);
  expect(keyCacheStatus(ctx.sql).entries).toBeGreaterThan(0);
  expect(keyCacheStatus(sqlB).entries).toBeGreaterThan(0);

  await other`update api_keys set revoked_at = now() where id = ${owner.keyId}`;
  // The NOTIFY empties both caches, not the 60 s TTL: well before it even on a loaded machine.
  const waited = await until(() => keyCacheStatus(ctx.sql).entries === 0 && keyCacheStatus(sqlB).entries === 0, 20_000);
  expect(waited).toBeLessThan(20_000);
  expect(await listOn(ctx.app, owner.key)).toBe(401);
  expect(await listOn(appB, owner.key)).toBe(401);
});

test("a plan change made elsewhere reaches the cached principal", async () => {
  const owner = await makeAccount(ctx, { plan: "paid" });
  expect(await listOn(appB, owner.key)).toBe(200);
  expect(keyCacheStatus(sqlB).entries).toBeGreaterThan(0);
  await other`update accounts set plan = 'free' where id = ${owner.accountId}`;
  await until(() => keyCacheStatus(sqlB).entries === 0, 20_000);
});

test("while the LISTEN connection is down the cache is bypassed, and it comes back", async () => {
  const owner = await makeAccount(ctx);
  expect(await listOn(appB, owner.key)).toBe(200);
  await until(() => keyCacheStatus(sqlB).listening, 20_000);
  expect(await listOn(appB, owner.key)).toBe(200);
  expect(keyCacheStatus(sqlB).entries).toBeGreaterThan(0);

  // Cut both instances' listening connections (only in this test's own database).
  const [{ datname }] = await other`select current_database() as datname`;
  await other`
    select pg_terminate_backend(pid) from pg_stat_activity
    where datname = ${datname} and pid <> pg_backend_pid() and query ilike 'listen %'`;
  await until(() => !keyCacheStatus(sqlB).listening && !keyCacheStatus(ctx.sql).listening, 20_000);
  expect(keyCacheStatus(sqlB).entries).toBe(0);

  // Revoked while nobody listens: the notification is lost, yet the key is refused at once.
  await other`update api_keys set revoked_at = now() where id = ${owner.keyId}`;
  expect(await listOn(appB, owner.key)).toBe(401);
  expect(await listOn(ctx.app, owner.key)).toBe(401);

  // LISTEN is re-established and the cache is used again.
  await until(() => keyCacheStatus(sqlB).listening, 20_000);
  const fresh = await makeAccount(ctx);
  expect(await listOn(appB, fresh.key)).toBe(200);
  expect(keyCacheStatus(sqlB).entries).toBeGreaterThan(0);
  expect(await listOn(appB, owner.key)).toBe(401);
});
