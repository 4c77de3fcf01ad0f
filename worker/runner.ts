// Runs the Graphile Worker task runner in this process. The service owns shutdown (SIGTERM), so
// the runner's own signal handling is off, and it owns the runner's connection pool: a pool the
// runner makes itself is ended without being waited for, and its error handlers are taken off
// first, so stopping an embedded Postgres right after crashed the process on a closing client.
import { EventEmitter } from "node:events";
import { type Runner, run, type WorkerEvents } from "graphile-worker";
import pg from "pg";
import { loadScreeningModels } from "../src/core/screening/index.ts";
import type { Services } from "../src/core/services.ts";
import { silentWorkerLogger } from "../src/db.ts";
import { errorFields } from "../src/log.ts";
import { jobDuration, jobFailures, jobQueueWait } from "../src/metrics.ts";
import { guardConnectionRejections } from "./connection-rejections.ts";
import { holdPoolLease, type PoolLease, startSweeper } from "./liveness.ts";
import { taskList } from "./tasks/index.ts";

export type WorkerHandle = {
  /** The Graphile Worker pool id this worker writes into locked_by. */
  poolId: string;
  /** Runs the dead-pool sweep at once (it also runs every WORKER_SWEEP_INTERVAL_MS). */
  sweepNow(): Promise<string[]>;
  stop(): Promise<void>;
};

export async function startWorker(svc: Services, databaseUrl: string): Promise<WorkerHandle> {
  // Before the first job, so that reading them holds no message (and no request) up.
  await loadScreeningModels();
  // Each of the concurrent jobs takes a client to fetch and complete itself: a pool smaller than
  // the concurrency makes jobs wait for one (Graphile Worker warns about it).
  const pool = new pg.Pool({ connectionString: databaseUrl, max: Math.max(10, svc.config.workerConcurrency + 1) });
  // A client whose server goes away emits on the pool when idle and on itself when checked out
  // (the runner's LISTEN connection is); unhandled, either would end the process.
  const poolError = (error: Error) => svc.log.warn("worker.pool_error", errorFields(error));
  pool.on("error", poolError);
  pool.on("connect", (client) => client.on("error", poolError));
  const endPool = trackedEnd(pool);
  // The pool's id is what Graphile Worker writes into locked_by; its lease marks it alive
  // (worker/liveness.ts). Events are ours so the id is known the moment the pool exists.
  const events: WorkerEvents = new EventEmitter() as WorkerEvents;
  let lease: Promise<PoolLease> | null = null;
  events.once("pool:create", ({ workerPool }) => {
    lease = holdPoolLease(databaseUrl, workerPool.id, svc.log);
    lease.catch(() => {});
  });
  // The jobs this process runs now, from the first one on; one locked by this pool and not in
  // here is an orphan (see the sweeper).
  const running = new Set<string>();
  events.on("job:start", ({ job }) => void running.add(job.id));
  events.on("job:complete", ({ job }) => void running.delete(job.id));
  const unguard = guardConnectionRejections((error) => svc.log.error("worker.result_not_recorded", errorFields(error)));
  let runner: Runner;
  try {
    runner = await run({
      events,
      pgPool: pool,
      concurrency: svc.config.workerConcurrency,
      noHandleSignals: true,
      pollInterval: 1000,
      taskList: taskList(svc),
      // Event log retention, hourly (Graphile Worker schedules each tick once across all workers);
      // max=1: a failed prune is not retried, the next hour's run does the work. Message retention
      // (src/core/retention.ts) the same way, at another minute.
      crontab: "17 * * * * prune_event_log ?max=1\n47 * * * * purge_expired_content ?max=1",
      logger: silentWorkerLogger(),
    });
  } catch (error) {
    unguard();
    await endPool();
    throw error;
  }
  // One log line per job run, with its id, task, attempt, duration and time spent waiting in the
  // queue (from run_at, when it became due, to its start: database clock against this process's).
  const started = new Map<string, { at: number; queueWaitMs: number }>();
  const elapsed = (id: string) => {
    const start = started.get(id);
    started.delete(id);
    return start === undefined
      ? { took: null, queueWaitMs: null }
      : { took: Math.round(performance.now() - start.at), queueWaitMs: start.queueWaitMs };
  };
  runner.events.on("job:start", ({ job }) => {
    const queueWaitMs = Math.max(0, Date.now() - new Date(job.run_at).getTime());
    jobQueueWait.observe({ task: job.task_identifier }, queueWaitMs / 1000);
    started.set(job.id, { at: performance.now(), queueWaitMs });
  });
  // The payload's message or delivery id, so one message can be followed from the listener's
  // line through its jobs to the webhook's.
  const subject = (payload: unknown) => {
    const { message_id, delivery_id } = (payload ?? {}) as { message_id?: unknown; delivery_id?: unknown };
    return { ...(typeof message_id === "string" ? { message_id } : {}), ...(typeof delivery_id === "string" ? { delivery_id } : {}) };
  };
  runner.events.on("job:error", ({ job, error }) => {
    const { took, queueWaitMs } = elapsed(job.id);
    jobFailures.inc({ task: job.task_identifier });
    if (took !== null) jobDuration.observe({ task: job.task_identifier, outcome: "failure" }, took / 1000);
    svc.log.warn("job.failed", {
      job_id: job.id,
      ...subject(job.payload),
      task: job.task_identifier,
      attempt: job.attempts,
      duration_ms: took,
      queue_wait_ms: queueWaitMs,
      error: String((error as Error)?.message ?? error),
    });
  });
  runner.events.on("job:success", ({ job }) => {
    const { took, queueWaitMs } = elapsed(job.id);
    if (took !== null) jobDuration.observe({ task: job.task_identifier, outcome: "success" }, took / 1000);
    svc.log.info("job.succeeded", {
      job_id: job.id,
      task: job.task_identifier,
      ...subject(job.payload),
      attempt: job.attempts,
      duration_ms: took,
      queue_wait_ms: queueWaitMs,
    });
  });
  let held: PoolLease;
  try {
    if (!lease) throw new Error("the worker pool was not created");
    held = await (lease as Promise<PoolLease>);
  } catch (error) {
    // Without a lease its jobs could never be told apart from a dead pool's: do not run.
    await runner.stop();
    await endPool();
    unguard();
    throw error;
  }
  const sweeper = startSweeper(
    svc.sql,
    held.poolId,
    { intervalMs: svc.config.workerRecovery.sweepIntervalMs, deadAfterMs: svc.config.workerRecovery.deadAfterMs, running: () => running },
    svc.log,
  );
  svc.log.info("worker.started", { concurrency: svc.config.workerConcurrency, pool_id: held.poolId });
  return {
    poolId: held.poolId,
    sweepNow: sweeper.sweepNow,
    async stop() {
      await sweeper.stop();
      await runner.stop();
      await held.release();
      await endPool();
      unguard();
    },
  };
}

/**
 * pg's `pool.end()` resolves once the pool has let go of its clients, while their sockets are still
 * closing; a database stopped right after (the embedded one, at shutdown) would then terminate them
 * mid-close. This end waits for every client's own end, for at most a few seconds.
 */
function trackedEnd(pool: pg.Pool): () => Promise<void> {
  const open = new Set<unknown>();
  pool.on("connect", (client) => void open.add(client));
  pool.on("remove", (client) => void open.delete(client));
  return async () => {
    const closed = new Promise<void>((resolve) => {
      const check = () => open.size === 0 && resolve();
      pool.on("remove", check);
      check();
    });
    await pool.end();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
    clearTimeout(timer);
  };
}
