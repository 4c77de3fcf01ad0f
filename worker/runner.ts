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
  runner.events.on("job:error", ({ job, error }) => {
    svc.log.warn("job.failed", { job_id: job.id, task: job.task_identifier, attempt: job.attempts, error: String((error as Error)?.message ?? error) });
  });
  runner.events.on("job:success", ({ job }) => {
    svc.log.debug("job.succeeded", { job_id: job.id, task: job.task_identifier });
  });
  svc.log.info("worker.started", { concurrency: svc.config.workerConcurrency });
  return { stop: () => runner.stop() };
}
