// The four fault scenarios. Each starts the service as `npm start` does (npx bun src/main.ts) with the
// roles it needs, starts the SMTP load, and injects its faults at fixed points of the sending time.
import type { Sql } from "../../src/db.ts";
import { copies } from "./copies.ts";
import type { Scenario } from "./harness.ts";
import type { ServiceProcess } from "./service.ts";

/** The whole service, every role in one process, SIGKILLed twice mid-stream and started again. */
const ingestKill: Scenario = {
  async run(run) {
    let service = await run.start("service");
    run.load();
    for (const fraction of [0.3, 0.65]) {
      await run.at(fraction);
      await service.kill("SIGKILL");
      service = await run.start("service");
    }
    run.notes.push("2 SIGKILLs of the whole service");
  },
};

/** The worker pool id of a running worker process, from the registry it writes at start. */
async function poolOf(sql: Sql, worker: ServiceProcess): Promise<string> {
  const [row] = await sql`select id from worker_pools where pid = ${worker.pid}`;
  if (!row) throw new Error(`worker ${worker.pid} has no registered pool`);
  return row.id as string;
}

/**
 * api and smtp in one process, two worker processes; each worker in turn is SIGKILLed while it
 * holds jobs (a slow receiver keeps webhook attempts in flight) and started again a second later.
 */
const workerKill: Scenario = {
  receiverDelayMs: 300,
  async run(run) {
    await run.start("front", { ROLES: "api,smtp" });
    const workers = [await run.start("worker-a", { ROLES: "worker" }), await run.start("worker-b", { ROLES: "worker" })];
    run.load();
    const stranded: number[] = [];
    for (const [index, fraction] of [0.3, 0.65].entries()) {
      await run.at(fraction);
      const victim = workers[index]!;
      const pool = await poolOf(run.sql, victim);
      // Mid-job: wait (up to 5 s) until the victim holds a job, then kill it at once.
      const until = performance.now() + 5_000;
      while (performance.now() < until) {
        const [held] = await run.sql`select count(*)::int as n from graphile_worker._private_jobs where locked_by = ${pool}`;
        if (held!.n > 0) break;
        await Bun.sleep(20);
      }
      await victim.kill("SIGKILL");
      const [held] = await run.sql`select count(*)::int as n from graphile_worker._private_jobs where locked_by = ${pool}`;
      stranded.push(held!.n);
      await Bun.sleep(1000);
      workers[index] = await run.start(victim.name, { ROLES: "worker" });
    }
    run.notes.push(`2 worker SIGKILLs, jobs left locked by the dead pools: ${stranded.join(" and ")}`);
  },
};

/** PostgreSQL stopped (fast shutdown) for 3 s during the load, then started again. */
const dbRestart: Scenario = {
  async run(run) {
    await run.start("service");
    run.load();
    await run.at(0.4);
    await run.db.restart(3_000);
    run.notes.push(`${run.db.kind === "embedded" ? "embedded" : "the DATABASE_URL server's"} PostgreSQL down 3 s (fast shutdown)`);
  },
};

/** The webhook receiver refuses connections for 10 s, with a shrunk retry schedule. */
const receiverOutage: Scenario = {
  async run(run, options) {
    await run.start("service", options.fast ? {} : { WEBHOOK_RETRY_SCHEDULE: "1,2,4,8,15" });
    run.load();
    await run.at(0.2);
    await run.receiver.down();
    const downMs = options.fast ? 3_000 : 10_000;
    await Bun.sleep(downMs);
    await run.receiver.up();
    run.notes.push(`receiver down ${downMs / 1000} s, retry schedule ${options.fast ? "0.5,1,1,2,2" : "1,2,4,8,15"} s`);
  },
};

export const scenarios: Record<string, Scenario> = {
  "ingest-kill": ingestKill,
  "worker-kill": workerKill,
  "db-restart": dbRestart,
  "receiver-outage": receiverOutage,
  copies,
};
