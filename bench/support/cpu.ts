// CPU time (user + system) of processes, from /proc (Linux; NaN elsewhere), so a benchmark can
// say where a message's CPU went on a machine whose cores it shares: the service, the scanners
// (a daemon and its forked children), and the PostgreSQL backends serving one database.
import { readdirSync, readFileSync } from "node:fs";
import type { Sql } from "../../src/db.ts";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function stat(pid: number): { ppid: number; cpu: number } | null {
  try {
    // The command name (field 2) may hold spaces and parentheses: split after its last ")".
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /s, "")
      .split(" ");
    return { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
  } catch {
    return null;
  }
}

/** CPU seconds used so far by one process (NaN when it cannot be read). */
export function cpuSeconds(pid: number): number {
  return stat(pid)?.cpu ?? NaN;
}

/**
 * CPU seconds per live process of the tree under `root` (itself included): spamd's and rspamd's
 * workers are its children. A child that exited between two samples takes its time with it; the
 * daemons here keep theirs for the whole run.
 */
export function treeCpu(root: number): Map<number, number> {
  const parents = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const found = stat(Number(entry));
    if (!found) continue;
    parents.set(Number(entry), found.ppid);
    cpu.set(Number(entry), found.cpu);
  }
  const inTree = (pid: number): boolean => {
    for (let at: number | undefined = pid, hops = 0; at !== undefined && at > 1 && hops < 64; at = parents.get(at), hops++) {
      if (at === root) return true;
    }
    return false;
  };
  const out = new Map<number, number>();
  for (const [pid, seconds] of cpu) if (inTree(pid)) out.set(pid, seconds);
  return out;
}

/** CPU seconds per backend process serving the database `sql` is connected to. */
export async function backendCpu(sql: Sql): Promise<Map<number, number>> {
  const rows = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`;
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    const seconds = cpuSeconds(pid);
    if (Number.isFinite(seconds)) out.set(pid, seconds);
  }
  return out;
}

/** CPU seconds used between two samples of the same processes (a process new in `after` counts from 0). */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
