// Enqueues Graphile Worker jobs in the caller's transaction, so a job exists exactly when the row
// it processes does (a rolled-back transaction leaves no job). Payloads carry ids only.
import type { PendingQuery, Row } from "postgres";
import type { Db, Sql } from "../db.ts";

export type TaskName = "process_inbound" | "reconcile_send" | "deliver_webhook" | "notify_reviewers" | "expire_review";

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

/**
 * The row `add_job(task, payload, job_key => jobKey)` makes for a new key (no queue, run now, 25
 * attempts), written without add_job's `pg_notify('jobs:insert')`, and only `when` the condition
 * holds. PostgreSQL serializes the commits of all transactions that NOTIFY, WAL flush included
 * (async.c takes a cluster-wide lock at pre-commit and holds it past the flush), so a NOTIFY
 * inside a hot transaction turns concurrent commits into one at a time. Callers wake the workers
 * after COMMIT instead (`./job-wakeup.ts`); a wake-up that is lost only delays the job to the
 * worker's next poll. Call `ensureTask` first: without the task's row the insert fails (task_id is
 * not null) rather than enqueue nothing. The key must be new: a taken one fails the insert too
 * (add_job would replace that job instead). Returned unexecuted, as a fragment of the caller's
 * statement (a common table expression).
 */
export function jobInsertQuietly(
  db: Db,
  task: TaskName,
  payload: Record<string, string>,
  jobKey: string,
  when: PendingQuery<Row[]> = db`true`,
): PendingQuery<Row[]> {
  return db`
    insert into graphile_worker._private_jobs (task_id, payload, key)
    select (select id from graphile_worker._private_tasks where identifier = ${task}), ${db.json(payload)}::json, ${jobKey}
    where ${when}`;
}

const ensured = new WeakMap<Sql, Set<TaskName>>();

/** The task's row, as the first add_job of that task ever makes it; once per pool. */
export async function ensureTask(sql: Sql, task: TaskName): Promise<void> {
  const known = ensured.get(sql) ?? new Set<TaskName>();
  if (known.has(task)) return;
  await sql`insert into graphile_worker._private_tasks (identifier) values (${task}) on conflict do nothing`;
  known.add(task);
  ensured.set(sql, known);
}
