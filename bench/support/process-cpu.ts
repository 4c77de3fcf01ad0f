// CPU time of processes, read from /proc (Linux): what a server spent per message, whatever the
// machine's other load did to the wall clock. User plus system time, in seconds.
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux the bench runs on

type Times = { parent: number; self: number; reapedChildren: number };

function times(pid: number): Times | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after "(comm)": state ppid … utime(12) stime(13) cutime(14) cstime(15), 1-based from state.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      parent: Number(fields[1]),
      self: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
      reapedChildren: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
    };
  } catch {
    return null; // gone
  }
}

export const available = (() => {
  try {
    return times(process.pid) !== null;
  } catch {
    return false;
  }
})();

/** CPU seconds of these processes themselves (a process that is gone counts 0). */
export function cpuOf(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + (times(pid)?.self ?? 0), 0);
}

/**
 * CPU seconds of a process and everything under it, including children that already exited
 * (their time is in the parent's reaped-children count once it waited for them, as Postfix's
 * master does for its daemons).
 */
export function cpuOfTree(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const t = times(Number(entry));
    if (t) children.set(t.parent, [...(children.get(t.parent) ?? []), Number(entry)]);
  }
  let total = 0;
  const walk = (pid: number) => {
    const t = times(pid);
    if (t) total += t.self + t.reapedChildren;
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return total;
}
