// Runs the Graphile Worker task runner in this process. The service owns shutdown (SIGTERM), so
// the runner's own signal handling is off.
import { run, type Runner } from "graphile-worker";
import type { Services } from "../src/core/services.ts";
import { silentWorkerLogger } from "../src/db.ts";
import { taskList } from "./tasks/index.ts";

export type WorkerHandle = { stop(): Promise<void> };

export async function startWorker(svc: Services, databaseUrl: string): Promise<WorkerHandle> {
  const runner: Runner = await run({
    connectionString: databaseUrl,
    concurrency: svc.config.workerConcurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: taskList(svc),
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
  return { stop: () => runner.stop() };
}
