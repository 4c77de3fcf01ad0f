// Runs the Graphile Worker task runner in this process. The service owns shutdown (SIGTERM), so
// the runner's own signal handling is off, and it owns the runner's connection pool: a pool the
// runner makes itself is ended without being waited for, and its error handlers are taken off
// first, so stopping an embedded Postgres right after crashed the process on a closing client.
import { run, type Runner } from "graphile-worker";
import pg from "pg";
import type { Services } from "../src/core/services.ts";
import { silentWorkerLogger } from "../src/db.ts";
import { errorFields } from "../src/log.ts";
import { taskList } from "./tasks/index.ts";

export type WorkerHandle = { stop(): Promise<void> };

export async function startWorker(svc: Services, databaseUrl: string): Promise<WorkerHandle> {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  // A client whose server goes away emits on the pool when idle and on itself when checked out
  // (the runner's LISTEN connection is); unhandled, either would end the process.
  const poolError = (error: Error) => svc.log.warn("worker.pool_error", errorFields(error));
  pool.on("error", poolError);
  pool.on("connect", (client) => client.on("error", poolError));
  const runner: Runner = await run({
    pgPool: pool,
    concurrency: svc.config.workerConcurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: taskList(svc),
    // Event log retention, hourly (Graphile Worker schedules each tick once across all workers);
    // max=1: a failed prune is not retried, the next hour's run does the work.
    crontab: "17 * * * * prune_event_log ?max=1",
    logger: silentWorkerLogger(),
  });
  // One log line per job run, with its id, task, attempt and duration.
  const started = new Map<string, number>();
  const elapsed = (id: string) => {
    const start = started.get(id);
    started.delete(id);
    return start === undefined ? null : Math.round(performance.now() - start);
  };
  runner.events.on("job:start", ({ job }) => void started.set(job.id, performance.now()));
  runner.events.on("job:error", ({ job, error }) => {
    svc.log.warn("job.failed", {
      job_id: job.id,
      task: job.task_identifier,
      attempt: job.attempts,
      duration_ms: elapsed(job.id),
      error: String((error as Error)?.message ?? error),
    });
  });
  runner.events.on("job:success", ({ job }) => {
    svc.log.info("job.succeeded", { job_id: job.id, task: job.task_identifier, attempt: job.attempts, duration_ms: elapsed(job.id) });
  });
  svc.log.info("worker.started", { concurrency: svc.config.workerConcurrency });
  return {
    async stop() {
      await runner.stop();
      await pool.end();
    },
  };
}
