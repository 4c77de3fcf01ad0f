// Enqueues Graphile Worker jobs in the caller's transaction, so a job exists exactly when the row
// it processes does (a rolled-back transaction leaves no job). Payloads carry ids only.
import type { Db } from "../db.ts";

export type TaskName = "process_inbound" | "reconcile_send" | "deliver_webhook";

export async function enqueueJob(
  db: Db,
  task: TaskName,
  payload: Record<string, string>,
  options: { jobKey?: string; runAt?: Date; maxAttempts?: number } = {},
): Promise<void> {
  await db`
    select graphile_worker.add_job(
      ${task},
      ${db.json(payload)}::json,
      job_key => ${options.jobKey ?? null}::text,
      run_at => ${options.runAt ?? null}::timestamptz,
      max_attempts => ${options.maxAttempts ?? 25}::int
    )`;
}
