// Wakes Graphile Worker's workers after jobs were committed without add_job's NOTIFY
// (`jobInsertQuietly`). The notification is only a hint: a worker also polls every second, so a
// wake-up that is lost (the process dies right after COMMIT, the database hiccups) delays a job
// by at most that, never loses it. One NOTIFY is in flight per pool at a time, carrying the
// number of jobs committed since the last one, which is how add_jobs counts them
// ('{"count":n}' nudges up to n idle workers).
import type { Sql } from "../db.ts";

type State = { pending: number; inFlight: boolean };
const states = new WeakMap<Sql, State>();

export function wakeWorkers(sql: Sql, jobs: number): void {
  if (jobs <= 0) return;
  let state = states.get(sql);
  if (!state) states.set(sql, (state = { pending: 0, inFlight: false }));
  state.pending += jobs;
  if (!state.inFlight) void send(sql, state);
}

async function send(sql: Sql, state: State): Promise<void> {
  state.inFlight = true;
  while (state.pending > 0) {
    const count = state.pending;
    state.pending = 0;
    try {
      // A transaction that writes nothing but a notification commits without waiting for a WAL flush.
      await sql`select pg_notify('jobs:insert', ${JSON.stringify({ count })})`;
    } catch {
      // Only a hint (see above): the workers' poll finds the jobs.
    }
  }
  state.inFlight = false;
}
