// postgres.js transactions must not mix (porsager/postgres#1189, #1216, #1204): a bounded run of
// the stress in test/support/pg-transaction-stress.ts, and one deterministic case per report that
// fails on the unpatched 3.4.9 (see docs/postgres-transactions.md; the long run is `npm run pgstress`).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { prepareStressSchema, runStress, type Scenario, summary } from "../support/pg-transaction-stress.ts";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await prepareStressSchema(db.url);
});

afterAll(async () => {
  await db.drop();
});

const quiet = { onnotice: () => {} };

/**
 * Transaction B: marks itself with `marker`, writes part 0, reports it is in (bIsIn), waits for
 * resumeB(), writes part 1 and throws, so it must roll back; bResult is "committed" or "failed <message>".
 */
function beginRollingBack(
  sql: postgres.Sql,
  marker: string,
  insert: (tx: postgres.TransactionSql, part: number) => postgres.PendingQuery<postgres.Row[]>,
) {
  let resumeB!: () => void;
  const bMayResume = new Promise<void>((resolve) => (resumeB = resolve));
  let bStarted!: () => void;
  const bIsIn = new Promise<void>((resolve) => (bStarted = resolve));
  const b = sql.begin(async (tx) => {
    await tx`select set_config('stress.tx', ${marker}, true)`;
    await insert(tx, 0);
    bStarted();
    await bMayResume;
    await insert(tx, 1);
    throw new Error("b rolls back");
  });
  const bResult = b.then(
    () => "committed",
    (e) => `failed ${e.message}`,
  );
  return { bIsIn, resumeB, bResult };
}

describe("postgres.js transactions under stress", () => {
  const rounds: Record<Scenario, number> = { pipeline: 120, terminate: 12, pool: 25 };
  for (const scenario of Object.keys(rounds) as Scenario[]) {
    test(`${scenario}: every transaction all or nothing, no query in another's transaction`, async () => {
      const report = await runStress({ url: db.url, scenario, rounds: rounds[scenario] });
      console.log(summary(report));
      expect(report.violations).toEqual([]);
      expect(report.hung).toBe(0);
      expect(report.nestedBegin + report.strayCommit).toBe(0);
      expect(report.driverErrors.UNSAFE_TRANSACTION ?? 0).toBe(0);
      expect(report.committed).toBeGreaterThan(0);
      expect(report.failed).toBeGreaterThan(0);
      if (scenario === "terminate") expect(report.terminatedBackends).toBeGreaterThan(0);
    }, 40_000);
  }
});

describe("one case per report", () => {
  test("#1189: a BEGIN that fills the pipeline still reserves its connection", async () => {
    // Two connections, four queries deep: some burst size below makes BEGIN the query that fills
    // a pipeline (on 3.4.9 that begin() failed with UNSAFE_TRANSACTION and left its transaction
    // open in the pool).
    const options = { ...quiet, max: 2, max_pipeline: 4 }; // max_pipeline is missing from the driver's types
    const sql = postgres(db.url, options);
    try {
      await Promise.all([sql`select 1`, sql`select 2`]);
      for (let burst = 0; burst < 14; burst++) {
        const reads = Array.from({ length: burst }, () => sql`select current_setting('stress.tx', true) as seen`.execute());
        const begun = sql.begin(async (tx) => {
          await tx`select set_config('stress.tx', ${`boundary${burst}`}, true)`;
          return (await tx`select current_setting('stress.tx', true) as seen`)[0]!.seen;
        });
        const after = Array.from({ length: 3 }, () => sql`select current_setting('stress.tx', true) as seen`.execute());
        expect(await begun).toBe(`boundary${burst}`);
        for (const [row] of await Promise.all([...reads, ...after])) expect(row!.seen || null).toBeNull();
      }
      const [open] =
        await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`;
      expect(open!.n).toBe(0);
    } finally {
      await sql.end({ timeout: 2 });
    }
  });

  test("#1216: after its backend dies, a transaction's callback cannot write or commit on the replacement", async () => {
    const app = `pgtx_1216_${process.pid}`;
    // One connection, so the replacement is certainly the connection object the dead transaction held.
    const sql = postgres(db.url, { ...quiet, max: 1, connection: { application_name: app } });
    const admin = postgres(db.url, { ...quiet, max: 1 });
    const id = (name: string) => `t1216_${process.pid}_${name}`;
    const insert = (tx: postgres.TransactionSql, name: string, part: number) => tx`
      insert into stress_rows (tx, part, seen_tx) values (${id(name)}, ${part}, current_setting('stress.tx', true))`;
    try {
      let resumeA!: () => void;
      const aMayResume = new Promise<void>((resolve) => (resumeA = resolve));
      let aWaits!: () => void;
      const aIsWaiting = new Promise<void>((resolve) => (aWaits = resolve));
      const lateResults: string[] = [];
      let aCallback!: Promise<void>;
      const a = sql.begin((tx) => {
        aCallback = (async () => {
          await tx`select set_config('stress.tx', ${id("a")}, true)`;
          await insert(tx, "a", 0);
          aWaits();
          await aMayResume; // awaiting something else while the backend is terminated
          await insert(tx, "a", 1).then(
            () => lateResults.push("insert ran"),
            (e) => lateResults.push(`insert rejected ${e.code}`),
          );
        })();
        return aCallback;
      });
      const aFailed = a.then(
        () => "committed",
        (e) => `failed ${e.code}`,
      );
      // Once A awaits (its backend idle in transaction), terminate that backend only.
      await aIsWaiting;
      let killed = 0;
      for (let i = 0; i < 100 && !killed; i++) {
        const rows = await admin`
          select pg_terminate_backend(pid) as done from pg_stat_activity
          where datname = current_database() and application_name = ${app} and state = 'idle in transaction'`;
        killed = rows.filter((row) => row.done).length;
        if (!killed) await Bun.sleep(10);
      }
      expect(killed).toBe(1);
      expect(await aFailed).toMatch(/^failed /);

      // B takes the reconnected connection and is mid-transaction when A's callback resumes.
      const { bIsIn, resumeB, bResult } = beginRollingBack(sql, id("b"), (tx, part) => insert(tx, "b", part));
      await bIsIn;
      resumeA();
      await aCallback.catch(() => {}); // A's callback ends; 3.4.9 then sent its COMMIT on B's connection
      resumeB();
      expect(await bResult).toBe("failed b rolls back");

      // Neither transaction committed, so no row of either may exist (on 3.4.9 A's late insert ran
      // inside B and A's COMMIT committed it with B's first row).
      const rows = await admin`select tx, part, seen_tx from stress_rows where tx in (${id("a")}, ${id("b")}) order by tx, part`;
      expect(rows.map((row) => `${row.tx}/${row.part}/${row.seen_tx}`)).toEqual([]);
      expect(lateResults).toEqual(["insert rejected CONNECTION_CLOSED"]);
    } finally {
      await sql.end({ timeout: 2 });
      await admin.end({ timeout: 2 });
    }
  });

  test("reserve(): after its backend dies, the handle cannot write, commit or release on the replacement", async () => {
    const app = `pgtx_reserve_${process.pid}`;
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const sql = postgres(db.url, { ...quiet, max: 1, connection: { application_name: app }, onclose: () => closed() });
    const admin = postgres(db.url, { ...quiet, max: 1 });
    const id = (name: string) => `reserve_${process.pid}_${name}`;
    const insert = (q: postgres.Sql | postgres.TransactionSql | postgres.ReservedSql, name: string, part: number) => q`
      insert into stress_rows (tx, part, seen_tx) values (${id(name)}, ${part}, current_setting('stress.tx', true))`;
    try {
      const r = await sql.reserve();
      await r`begin`;
      await r`select set_config('stress.tx', ${id("r")}, true)`;
      await insert(r, "r", 0);
      const [killed] = await admin`
        select count(*) filter (where pg_terminate_backend(pid))::int as n from pg_stat_activity
        where datname = current_database() and application_name = ${app} and state = 'idle in transaction'`;
      expect(killed!.n).toBe(1);
      await connectionClosed;

      // A transaction takes the reconnected connection and is open when the stale handle acts.
      const { bIsIn, resumeB, bResult } = beginRollingBack(sql, id("b"), (tx, part) => insert(tx, "b", part));
      await bIsIn;
      const late = await Promise.all(
        [insert(r, "r", 1), r`commit`].map((q) =>
          q.then(
            () => "ran",
            (e) => e.code,
          ),
        ),
      );
      // Queued behind B (the pool has one connection); on 3.4.9 release() ran it inside B.
      const outside = sql`select current_setting('stress.tx', true) as seen`.execute().then(([row]) => row!.seen || null);
      r.release();
      await Bun.sleep(20);
      resumeB();
      expect(await bResult).toBe("failed b rolls back");

      const rows = await admin`select tx, part, seen_tx from stress_rows where tx in (${id("r")}, ${id("b")}) order by tx, part`;
      expect(rows.map((row) => `${row.tx}/${row.part}/${row.seen_tx}`)).toEqual([]);
      expect(late).toEqual(["CONNECTION_CLOSED", "CONNECTION_CLOSED"]);
      expect(await outside).toBeNull();
    } finally {
      await sql.end({ timeout: 2 });
      await admin.end({ timeout: 2 });
    }
  });
});
