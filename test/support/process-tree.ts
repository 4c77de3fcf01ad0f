// The memory of a running service and the processes it started, read from Linux /proc, for the
// resource tests and benchmarks that watch a service while hostile input arrives.
import { readdirSync, readFileSync } from "node:fs";

/**
 * Resident memory of a process and all its descendants, in bytes (Linux /proc). A child that has
 * not yet called exec still runs its parent's image (spawn clones it) and shows the parent's
 * resident pages as its own: it is counted as nothing, or the parent would be counted twice.
 */
export function treeRss(pid: number, depth = Infinity): number {
  const rssOf = (id: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${id}/status`, "utf8"))?.[1] ?? 0) * 1024;
  if (depth === 0) return rssOf(pid);
  const image = (id: number) => readFileSync(`/proc/${id}/cmdline`, "utf8");
  let total = 0;
  const stack: { id: number; parentImage: string | null }[] = [{ id: pid, parentImage: null }];
  while (stack.length > 0) {
    const { id, parentImage } = stack.pop()!;
    try {
      const own = image(id);
      if (own !== parentImage) total += rssOf(id);
      for (const task of readdirSync(`/proc/${id}/task`)) {
        const children = readFileSync(`/proc/${id}/task/${task}/children`, "utf8").trim();
        if (children) stack.push(...children.split(/\s+/).map((child) => ({ id: Number(child), parentImage: own })));
      }
    } catch {
      // gone in the meantime
    }
  }
  return total;
}

/** The value below which `share` of the sorted `values` lie (nearest rank). */
export function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

/** A process's niceness (field 19 of /proc/PID/stat), or null when it is gone. */
export function nicenessOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command name, which is in parentheses and may hold spaces; the first of them is field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[19 - 3]);
  } catch {
    return null;
  }
}

/** Each direct child's tree (an extraction process with the tools it started): its resident memory, what it runs, its niceness. */
export function childTrees(pid: number): { rss: number; command: string; niceness: number | null }[] {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean))
      .filter((child) => {
        try {
          return readFileSync(`/proc/${child}/cmdline`, "utf8") !== readFileSync(`/proc/${pid}/cmdline`, "utf8");
        } catch {
          return false;
        }
      })
      .map((child) => ({
        rss: treeRss(Number(child)),
        niceness: nicenessOf(Number(child)),
        command: (() => {
          try {
            return readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0").join(" ").slice(0, 160);
          } catch {
            return "";
          }
        })(),
      }));
  } catch {
    return [];
  }
}
