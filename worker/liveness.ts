// Crash recovery for jobs. Graphile Worker writes its pool's id into locked_by and, left alone,
// frees the lock of a pool that died without stopping only after 4 hours. Here PostgreSQL judges
// whether a pool's process is alive: the process holds a session-level advisory lock for its pool
// (worker_pool_alive() in sql/0010_recovery.sql), and the server drops it when that session ends.
// Every worker sweeps: a registered pool whose lock stays gone for deadAfterMs is dead, and its
// jobs are handed back with Graphile Worker's own force_unlock_workers (what
// WorkerUtils.forceUnlockWorkers runs). A pool that holds its lock is never touched, however long
// its jobs take. See docs/recovery.md for the bound and why it is safe.
import { hostname } from "node:os";
import pg from "pg";
import type { Sql } from "../src/db.ts";
import type { Logger } from "../src/log.ts";
import { errorFields } from "../src/log.ts";

/** Key 1 of the two-key advisory lock; key 2 is hashtext(pool id). Also in worker_pool_alive(). */
const POOL_LOCK_CLASS = 7_351_010;
const RECONNECT_MS = 1_000;

export type PoolLease = { poolId: string; release(): Promise<void> };

/**
 * Registers a pool and holds its liveness lock on a session of its own until release(). A lost
 * session (a database restart, a network cut) is opened again every second; the pool counts as
 * dead to the other workers only if that takes longer than their deadAfterMs.
 */
export async function holdPoolLease(databaseUrl: string, poolId: string, log: Logger): Promise<PoolLease> {
  let client: pg.Client | null = null;
  let released = false;
  let opened = false;
  let retry: ReturnType<typeof setTimeout> | null = null;

  const open = async (): Promise<void> => {
    const session = new pg.Client({ connectionString: databaseUrl, keepAlive: true, application_name: `agent-mailbox worker ${poolId}` });
    const lost = (error: Error | null) => {
      if (session !== client || released) return;
      client = null;
      log.warn("worker.lease_lost", { pool_id: poolId, ...(error ? errorFields(error) : {}) });
      reopenSoon();
    };
    session.on("error", lost);
    session.on("end", () => lost(null));
    try {
      await session.connect();
      // A machine that vanishes sends no FIN: the server finds the dead socket by keepalive in
      // about 5 + 3 × 5 s instead of the operating system's default of hours.
      await session.query("set tcp_keepalives_idle = 5; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 3");
      // try: another live pool whose id hashes alike already holds the key, which keeps it held.
      await session.query("select pg_try_advisory_lock($1, hashtext($2))", [POOL_LOCK_CLASS, poolId]);
      const registered = await session.query(
        "insert into worker_pools (id, host, pid) values ($1, $2, $3) on conflict (id) do nothing returning id",
        [poolId, hostname(), process.pid],
      );
      if (released) {
        // Released while this reopen was under way: leave nothing behind.
        await session.query("delete from worker_pools where id = $1", [poolId]);
        await session.end();
        return;
      }
      client = session;
      if (opened && registered.rowCount === 1) {
        // Our row was gone: another worker took us for dead while the session was down, and ran
        // our jobs again. Tasks are idempotent, so this costs a repeat, not a wrong result.
        log.warn("worker.lease_reregistered", { pool_id: poolId });
      }
      opened = true;
    } catch (error) {
      session.removeAllListeners("end");
      await session.end().catch(() => {});
      throw error;
    }
  };

  const reopenSoon = () => {
    if (released || retry !== null) return;
    retry = setTimeout(() => {
      open().then(
        () => {
          retry = null;
          log.info("worker.lease_regained", { pool_id: poolId });
        },
        (error) => {
          retry = null;
          log.warn("worker.lease_retry_failed", { pool_id: poolId, ...errorFields(error) });
          reopenSoon();
        },
      );
    }, RECONNECT_MS);
  };

  await open();
  return {
    poolId,
    async release() {
      released = true;
      if (retry !== null) clearTimeout(retry);
      const session = client;
      client = null;
      if (!session) return;
      // Gone from the registry first, so no sweeper ever sees a stopping pool as a dead one.
      await session.query("delete from worker_pools where id = $1", [poolId]).catch(() => {});
      await session.end().catch(() => {});
    },
  };
}

export type Sweeper = { sweepNow(): Promise<string[]>; stop(): Promise<void> };

/**
 * Every intervalMs (±20%), looks for registered pools other than its own whose lock is gone, and
 * frees the jobs of those still gone deadAfterMs later (by this process's own monotonic clock,
 * between two of its own looks at the database: no clocks are compared across machines).
 */
export function startSweeper(
  sql: Sql,
  ownPoolId: string,
  options: { intervalMs: number; deadAfterMs: number; running: () => ReadonlySet<string> },
  log: Logger,
): Sweeper {
  const firstSeenGone = new Map<string, number>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<string[]> | null = null;
  let stopped = false;

  const sweep = async (): Promise<string[]> => {
    const now = performance.now();
    const gone = (await sql`select id from worker_pools where id <> ${ownPoolId} and not worker_pool_alive(id)`).map(
      (row) => row.id as string,
    );
    for (const id of firstSeenGone.keys()) if (!gone.includes(id)) firstSeenGone.delete(id);
    const dead: string[] = [];
    for (const id of gone) {
      const since = firstSeenGone.get(id);
      if (since === undefined) firstSeenGone.set(id, now);
      if (now - (since ?? now) >= options.deadAfterMs) dead.push(id);
    }
    await freeOwnOrphans(now);
    if (dead.length === 0) return [];
    const freed = await sql.begin(async (tx) => {
      // Checked again under the row locks: a pool that came back in the meantime is left alone.
      const confirmed = (await tx`delete from worker_pools where id in ${tx(dead)} and not worker_pool_alive(id) returning id`).map(
        (row) => row.id as string,
      );
      if (confirmed.length === 0) return [];
      const jobs = await tx`select j.id, t.identifier as task from graphile_worker._private_jobs j
        join graphile_worker._private_tasks t on t.id = j.task_id where j.locked_by in ${tx(confirmed)}`;
      await tx`select graphile_worker.force_unlock_workers(${confirmed}::text[])`;
      log.warn("worker.dead_pools_freed", { pool_ids: confirmed, jobs: jobs.map((job) => `${job.task}:${job.id}`) });
      return confirmed;
    });
    for (const id of freed) firstSeenGone.delete(id);
    return freed;
  };

  // Jobs locked by this live pool that it no longer runs: their result could not be recorded
  // (the database was away; see connection-rejections.ts). Only this process can know that, so
  // only it frees them, with the statement force_unlock_workers runs, narrowed to those jobs.
  const orphanSince = new Map<string, number>();
  const freeOwnOrphans = async (now: number) => {
    const running = options.running();
    const locked = (await sql`select id::text from graphile_worker._private_jobs where locked_by = ${ownPoolId}`).map(
      (row) => row.id as string,
    );
    const orphans = locked.filter((id) => !running.has(id));
    for (const id of orphanSince.keys()) if (!orphans.includes(id)) orphanSince.delete(id);
    const due: string[] = [];
    for (const id of orphans) {
      const since = orphanSince.get(id);
      if (since === undefined) orphanSince.set(id, now);
      // Checked again against the running set: a job may have started since the query.
      if (now - (since ?? now) >= options.deadAfterMs && !options.running().has(id)) due.push(id);
    }
    if (due.length === 0) return;
    const freed = await sql`
      update graphile_worker._private_jobs set locked_at = null, locked_by = null
      where id = any(${due}::bigint[]) and locked_by = ${ownPoolId} returning id::text`;
    for (const id of due) orphanSince.delete(id);
    log.warn("worker.own_orphans_freed", { pool_id: ownPoolId, job_ids: freed.map((row) => row.id as string) });
  };

  const guarded = (): Promise<string[]> => {
    running ??= sweep()
      .catch((error) => {
        log.warn("worker.sweep_failed", errorFields(error));
        return [] as string[];
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const schedule = () => {
    if (stopped) return;
    const delay = options.intervalMs * (0.8 + 0.4 * Math.random());
    timer = setTimeout(() => void guarded().finally(schedule), delay);
  };
  schedule();

  return {
    sweepNow: guarded,
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running;
    },
  };
}
