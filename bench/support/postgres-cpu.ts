// CPU time of the PostgreSQL server a bench talks to, when it runs on this machine: the postmaster
// and every process under it (backends, WAL writer, checkpointer, autovacuum), read from /proc.
// A bench whose operations end in the database is bound, on a machine of few cores, by the CPU
// of all the processes an operation goes through, the server's included.
import { readFileSync } from "node:fs";
import type { Sql } from "../../src/db.ts";
import { cpuOfTree } from "./process-cpu.ts";

function statOf(pid: number): { comm: string; parent: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    return { comm, parent: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) };
  } catch {
    return null;
  }
}

/**
 * A reader of the server's CPU seconds so far, or null when the server is not a local process
 * (another machine, a container, /proc not readable): the backend serving `sql` must be a process
 * named postgres here, and its parent the postmaster.
 */
export async function postgresCpuReader(sql: Sql): Promise<(() => number) | null> {
  const [{ pid }] = (await sql`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
  const backend = statOf(pid);
  if (!backend?.comm.startsWith("postgres")) return null;
  const postmaster = backend.parent;
  if (!statOf(postmaster)?.comm.startsWith("postgres")) return null;
  return () => cpuOfTree(postmaster);
}
