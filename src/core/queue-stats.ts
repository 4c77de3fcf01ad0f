// What an operator's scrape needs from the database at scrape time: the queue per task (read from
// Graphile Worker's tables, which every copy shares), dead letters, and server connections.
// A job is a dead letter once it used all its attempts: Graphile Worker keeps it, never runs it.
import type { Sql } from "../db.ts";

export type QueueRow = { task: string; jobs: number; failed: number; oldestAgeSeconds: number };
export type OperationalStats = {
  queue: QueueRow[];
  deadWebhookDeliveries: number;
  connections: { state: string; count: number }[];
};

export async function operationalStats(sql: Sql): Promise<OperationalStats> {
  const [queue, [dead], connections] = await Promise.all([
    sql`
      select t.identifier as task,
        count(*) filter (where j.attempts < j.max_attempts)::int as jobs,
        count(*) filter (where j.attempts >= j.max_attempts)::int as failed,
        coalesce(extract(epoch from now() - min(j.run_at) filter (where j.attempts < j.max_attempts and j.run_at <= now())), 0)::float8 as oldest
      from graphile_worker._private_tasks t
      left join graphile_worker._private_jobs j on j.task_id = t.id
      group by t.identifier`,
    sql`select count(*)::int as count from webhook_deliveries where state = 'dead'`,
    sql`
      select coalesce(state, 'unknown') as state, count(*)::int as count
      from pg_stat_activity where datname = current_database() and backend_type = 'client backend'
      group by 1`,
  ]);
  return {
    queue: queue.map((row) => ({ task: row.task, jobs: row.jobs, failed: row.failed, oldestAgeSeconds: Math.max(0, Number(row.oldest)) })),
    deadWebhookDeliveries: dead?.count ?? 0,
    connections: connections.map((row) => ({ state: row.state, count: row.count })),
  };
}
