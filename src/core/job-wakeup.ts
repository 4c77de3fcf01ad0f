// Wakes Graphile Worker's workers after jobs were committed without add_job's NOTIFY
// (`jobInsertQuietly`). The notification is only a hint: a worker also polls every second, so a
// wake-up that is lost (the process dies right after COMMIT, the database hiccups) delays a job
// by at most that, never loses it. One NOTIFY is in flight per pool at a time, carrying the
// number of jobs committed since the last one, which is how add_jobs counts them
// ('{"count":n}' nudges up to n idle workers). The first jobs after a quiet spell are announced at
// once; while jobs keep coming, the next notification waits until GAP_MS after the previous one
// answered, so a steady stream of accepts costs a notification per GAP_MS, not one per round
// trip (each is a statement, a transaction and a reply, in this process and in a backend).
import type { Sql } from "../db.ts";

/** How long jobs committed right after a notification wait for the next one (a worker's poll is 1 s). */
const GAP_MS = 10;

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
    if (state.pending > 0) await new Promise((resolve) => setTimeout(resolve, GAP_MS).unref());
  }
  state.inFlight = false;
}
