// Provokes the postgres.js transaction-mixing reports (porsager/postgres#1189, #1216, #1204) against
// a database the caller owns, then checks that no transaction leaked into another. Used by
// test/project/pg-transactions.stress.test.ts (bounded) and scripts/pg-transaction-stress.ts (long runs).
//
// Every stress transaction marks itself with a transaction-local setting (`stress.tx`) and records,
// on each row it writes, the marker it saw: a row written anywhere but inside its own transaction
// carries another marker or none. Unrelated callers read the marker too (it must be empty) and
// write rows of their own in autocommit (each acknowledged one must be present afterwards).
import postgresDefault from "postgres";

export type PostgresFactory = typeof postgresDefault;

export type Scenario = "pipeline" | "terminate" | "pool";
export const SCENARIOS: Scenario[] = ["pipeline", "terminate", "pool"];

export type StressReport = {
  scenario: Scenario;
  transactions: number;
  committed: number;
  failed: number;
  /** The connection died during COMMIT: all rows or none is right, either way. */
  inDoubt: number;
  terminatedBackends: number;
  outsideQueries: number;
  /** Server notices 25001 (BEGIN inside a transaction) and 25P01 (COMMIT/ROLLBACK outside one). */
  nestedBegin: number;
  strayCommit: number;
  /** Driver errors that only a mixed-up connection produces (UNSAFE_TRANSACTION, TypeError). */
  driverErrors: Record<string, number>;
  /** Transaction callbacks still running long after their begin() settled. */
  hung: number;
  violations: string[];
};

export type StressOptions = {
  url: string;
  scenario: Scenario;
  rounds: number;
  driver?: PostgresFactory;
  /** The application_name our pool connects with: the only backends the killer may terminate. */
  appName?: string;
  log?: (line: string) => void;
};

type TxRecord = {
  id: string;
  parts: number;
  mustFail: boolean;
  state: "pending" | "committed" | "failed" | "in_doubt";
  callbackDone: boolean;
  error?: unknown;
};

type Run = {
  sql: ReturnType<PostgresFactory>;
  admin: ReturnType<PostgresFactory>;
  report: StressReport;
  txs: TxRecord[];
  callbacks: Promise<unknown>[];
  outside: { id: string; acked: boolean }[];
  prefix: string;
  appName: string;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const random = (n: number) => Math.floor(Math.random() * n);

export async function prepareStressSchema(url: string, driver: PostgresFactory = postgresDefault): Promise<void> {
  const sql = driver(url, { max: 1, onnotice: () => {} });
  try {
    await sql`create table if not exists stress_rows (
      tx text not null, part int not null, seen_tx text, pid int, pad_length int, primary key (tx, part))`;
    await sql`create table if not exists stress_outside (id text primary key, seen_tx text)`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function runStress(options: StressOptions): Promise<StressReport> {
  const driver = options.driver ?? postgresDefault;
  const appName = options.appName ?? `pgstress_${process.pid}`;
  const report: StressReport = {
    scenario: options.scenario,
    transactions: 0,
    committed: 0,
    failed: 0,
    inDoubt: 0,
    terminatedBackends: 0,
    outsideQueries: 0,
    nestedBegin: 0,
    strayCommit: 0,
    driverErrors: {},
    hung: 0,
    violations: [],
  };
  const onnotice = (notice: { code?: string }) => {
    if (notice.code === "25001") report.nestedBegin++;
    if (notice.code === "25P01") report.strayCommit++;
  };
  const shape = poolShape(options.scenario);
  const sql = driver(options.url, {
    max: shape.max,
    ...(shape.maxPipeline ? { max_pipeline: shape.maxPipeline } : {}),
    onnotice,
    connection: { application_name: appName },
  });
  const admin = driver(options.url, { max: 1, onnotice: () => {}, connection: { application_name: `${appName}_admin` } });
  let result = report;
  const run: Run = {
    sql,
    admin,
    report,
    txs: [],
    callbacks: [],
    outside: [],
    prefix: `${options.scenario}_${Date.now().toString(36)}_`,
    appName,
  };
  try {
    for (let round = 0; round < options.rounds; round++) {
      if (options.scenario === "pipeline") await pipelineRound(run, round);
      else if (options.scenario === "terminate") await terminateRound(run);
      else await poolRound(run);
    }
    await settle(run);
    await checkInvariant(run);
    // Ending the pool rejects whatever still hangs; those errors are not the run's.
    result = structuredClone(report);
  } finally {
    await sql.end({ timeout: 2 }).catch(() => {});
    await admin.end({ timeout: 2 }).catch(() => {});
  }
  options.log?.(summary(result));
  return result;
}

export function summary(r: StressReport): string {
  const errors =
    Object.entries(r.driverErrors)
      .map(([k, v]) => `${k}=${v}`)
      .join(",") || "none";
  return (
    `${r.scenario}: ${r.transactions} tx (${r.committed} committed, ${r.failed} failed, ${r.inDoubt} in doubt), ` +
    `${r.terminatedBackends} backends terminated, ${r.outsideQueries} outside queries, notices 25001=${r.nestedBegin} 25P01=${r.strayCommit}, ` +
    `driver errors ${errors}, hung ${r.hung}, violations ${r.violations.length}`
  );
}

function poolShape(scenario: Scenario): { max: number; maxPipeline?: number } {
  // A small pool makes connections change hands often; the pipeline scenario also runs with a
  // short pipeline so that BEGIN lands on the boundary often (the pool scenario's bursts reach the
  // production default of 100).
  if (scenario === "pipeline") return { max: 2, maxPipeline: PIPELINE };
  if (scenario === "terminate") return { max: 3 };
  return { max: 3 };
}

const PIPELINE = 4;

type TxShape = { parts: number; pauseMs: number; pipelined: boolean; padBytes: number; mustFail: boolean };

/** Starts one transaction; its record settles with begin(), its callback is tracked apart. */
function startTransaction(run: Run, shape: TxShape): Promise<void> {
  const record: TxRecord = {
    id: `${run.prefix}${run.txs.length}`,
    parts: shape.parts,
    mustFail: shape.mustFail,
    state: "pending",
    callbackDone: false,
  };
  run.txs.push(record);
  run.report.transactions++;
  let callback!: Promise<unknown>;
  const begun = run.sql.begin((tx) => {
    callback = (async () => {
      await tx`select set_config('stress.tx', ${record.id}, true)`;
      const pad = "x".repeat(shape.padBytes);
      const insert = (part: number) => tx`
        insert into stress_rows (tx, part, seen_tx, pid, pad_length)
        values (${record.id}, ${part}, current_setting('stress.tx', true), pg_backend_pid(), length(${pad}))`;
      if (shape.pipelined) {
        await Promise.all(Array.from({ length: shape.parts }, (_, part) => insert(part)));
        if (shape.pauseMs) await sleep(random(shape.pauseMs));
      } else {
        for (let part = 0; part < shape.parts; part++) {
          await insert(part);
          if (shape.pauseMs) await sleep(random(shape.pauseMs));
        }
      }
      if (shape.mustFail) throw new IntendedFailure();
    })().finally(() => (record.callbackDone = true));
    run.callbacks.push(callback.catch(() => {}));
    return callback;
  });
  const settled = begun.then(
    () => void (record.state = "committed"),
    (error: unknown) => {
      record.error = error;
      // The callback had finished and COMMIT was on the wire when the connection died: the server
      // may or may not have committed. Any driver has this window; it is not a mix-up.
      record.state = record.callbackDone && !record.mustFail && isConnectionError(error) ? "in_doubt" : "failed";
      countDriverError(run.report, error);
    },
  );
  // A begin() that never settles is reported as hung rather than stalling the run.
  return Promise.race([settled, sleep(BEGIN_TIMEOUT_MS).then(() => {})]);
}

const BEGIN_TIMEOUT_MS = 2_000;

class IntendedFailure extends Error {}

function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code ?? "";
  return /^CONNECTION_|^57P01$|^ECONNRESET$/.test(code);
}

function countDriverError(report: StressReport, error: unknown) {
  if (error instanceof IntendedFailure) return;
  const code = (error as { code?: string } | null)?.code;
  const key = code ?? (error instanceof Error ? error.constructor.name : "unknown");
  report.driverErrors[key] = (report.driverErrors[key] ?? 0) + 1;
}

/** An unrelated caller: reads the marker (must be empty) and writes an autocommit row. */
async function outsideQuery(run: Run, kind: "read" | "write"): Promise<void> {
  run.report.outsideQueries++;
  const done = outsideQueryOnce(run, kind).then(() => false);
  if (await Promise.race([done, sleep(BEGIN_TIMEOUT_MS).then(() => true)])) run.report.hung++;
}

async function outsideQueryOnce(run: Run, kind: "read" | "write"): Promise<void> {
  try {
    if (kind === "read") {
      // execute() hands the query to the pool now, in call order with the begin() calls around it.
      const [row] = await run.sql`select current_setting('stress.tx', true) as seen, txid_current_if_assigned()::text as xid`.execute();
      if (row!.seen) run.report.violations.push(`an unrelated query ran inside transaction ${row!.seen}`);
      else if (row!.xid) run.report.violations.push(`an unrelated query ran inside a writing transaction (xid ${row!.xid})`);
      return;
    }
    const entry = { id: `${run.prefix}out${run.outside.length}`, acked: false };
    run.outside.push(entry);
    await run.sql`insert into stress_outside (id, seen_tx) values (${entry.id}, current_setting('stress.tx', true))`.execute();
    entry.acked = true;
  } catch (error) {
    countDriverError(run.report, error);
  }
}

/**
 * #1189: plain queries then begin(), all at once, sweeping the burst size so that BEGIN is the
 * query that fills a connection's pipeline in some rounds (which one depends on the pool's state).
 */
async function pipelineRound(run: Run, round: number): Promise<void> {
  const work: Promise<unknown>[] = [];
  const burst = round % (2 * PIPELINE + 8);
  for (let i = 0; i < burst; i++) work.push(outsideQuery(run, i % 4 === 3 ? "write" : "read"));
  work.push(startTransaction(run, { parts: 2, pauseMs: 0, pipelined: false, padBytes: 0, mustFail: random(5) === 0 }));
  for (let i = 0; i < 3; i++) work.push(outsideQuery(run, i === 1 ? "write" : "read"));
  if (random(2)) work.push(startTransaction(run, { parts: 2, pauseMs: 2, pipelined: false, padBytes: 0, mustFail: random(5) === 0 }));
  await Promise.all(work);
}

/** #1216: backends terminated while transaction callbacks await work that is not the database. */
async function terminateRound(run: Run): Promise<void> {
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 6; i++) {
    work.push(startTransaction(run, { parts: 3, pauseMs: 15, pipelined: false, padBytes: 0, mustFail: random(6) === 0 }));
  }
  const stop = { done: false };
  const outside = (async () => {
    while (!stop.done) {
      await outsideQuery(run, random(2) ? "read" : "write");
      await sleep(random(3));
    }
  })();
  await sleep(5 + random(10));
  await terminateOne(run);
  await Promise.all(work);
  stop.done = true;
  await outside;
}

async function terminateOne(run: Run): Promise<void> {
  // Only backends of this run's own pool, in this database: the server is shared.
  const rows = await run.admin`
    select pg_terminate_backend(pid) as done from pg_stat_activity
    where datname = current_database() and application_name = ${run.appName} and pid <> pg_backend_pid()
      and state = 'idle in transaction'
    order by random() limit 1`;
  run.report.terminatedBackends += rows.filter((row) => row.done).length;
}

/**
 * #1204: a small pool at the production pipeline length (100) shared by concurrent begin() calls
 * placed at random points of large bursts of unrelated queries, some writing enough at once that
 * the socket pushes back.
 */
async function poolRound(run: Run): Promise<void> {
  const work: Promise<unknown>[] = [];
  const burst = random(2 * 100 + 40);
  const begins = new Set(Array.from({ length: 2 + random(4) }, () => random(burst + 1)));
  for (let i = 0; i <= burst; i++) {
    if (begins.has(i)) {
      const big = random(4) === 0;
      work.push(
        startTransaction(run, {
          parts: big ? 8 : 3,
          pauseMs: 3,
          pipelined: random(2) === 0,
          padBytes: big ? POOL_PAD_BYTES : 0,
          mustFail: random(4) === 0,
        }),
      );
    }
    if (i < burst) work.push(outsideQuery(run, random(5) === 0 ? "write" : "read"));
  }
  await Promise.all(work);
}

const POOL_PAD_BYTES = Number(process.env.PGSTRESS_PAD ?? 256 * 1024);

/** Waits for stray callbacks (they may keep running after begin() settled), bounded. */
async function settle(run: Run): Promise<void> {
  const all = Promise.all(run.callbacks);
  const timedOut = await Promise.race([all.then(() => false), sleep(BEGIN_TIMEOUT_MS).then(() => true)]);
  if (timedOut) run.report.hung += run.txs.filter((tx) => !tx.callbackDone && tx.state !== "pending").length;
  // A transaction left open on a pooled backend after every caller settled was never ours to leave.
  const [open] = await run.admin`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and application_name = ${run.appName} and state like 'idle in transaction%'`;
  if (open!.n > 0 && run.report.hung === 0) run.report.violations.push(`${open!.n} pooled backend(s) left idle in transaction`);
}

async function checkInvariant(run: Run): Promise<void> {
  const ids = run.txs.map((tx) => tx.id);
  const rows = await run.admin`select tx, part, seen_tx from stress_rows where tx = any(${ids}::text[])`;
  const byTx = new Map<string, { part: number; seen: string | null }[]>();
  for (const row of rows) {
    const list = byTx.get(row.tx) ?? [];
    list.push({ part: row.part, seen: row.seen_tx });
    byTx.set(row.tx, list);
  }
  const v = run.report.violations;
  for (const tx of run.txs) {
    const found = byTx.get(tx.id) ?? [];
    if (tx.state === "pending") {
      run.report.hung++;
      continue;
    }
    if (tx.state === "committed") run.report.committed++;
    else if (tx.state === "in_doubt") run.report.inDoubt++;
    else if (tx.state === "failed") run.report.failed++;
    for (const row of found) {
      if (row.seen !== tx.id)
        v.push(`${tx.id} part ${row.part} was written inside ${row.seen ? `transaction ${row.seen}` : "no transaction"}`);
    }
    if (tx.state === "committed" && found.length !== tx.parts) v.push(`${tx.id} committed with ${found.length}/${tx.parts} rows`);
    if (tx.state === "failed" && found.length > 0)
      v.push(`${tx.id} failed (${describe(tx.error)}) but ${found.length}/${tx.parts} rows are committed`);
    if (tx.state === "in_doubt" && found.length !== 0 && found.length !== tx.parts)
      v.push(`${tx.id} in doubt with ${found.length}/${tx.parts} rows`);
  }
  const outsideIds = run.outside.filter((o) => o.acked).map((o) => o.id);
  const present = await run.admin`select id, seen_tx from stress_outside where id = any(${outsideIds}::text[])`;
  const seen = new Map(present.map((row) => [row.id as string, row.seen_tx as string | null]));
  for (const id of outsideIds) {
    if (!seen.has(id)) v.push(`unrelated write ${id} was acknowledged but is not committed`);
    else if (seen.get(id)) v.push(`unrelated write ${id} ran inside transaction ${seen.get(id)}`);
  }
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string } | null;
  return e?.code ?? e?.message ?? String(error);
}
