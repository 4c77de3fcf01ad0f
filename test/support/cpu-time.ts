// CPU time, not wall time, for tests that bound how much work a hostile input costs (a regex, a
// parser, a sanitizer): on a machine loaded by other processes the wall time of the same work
// grows with the load, its CPU time does not. A pathological input (quadratic or exponential) still
// blows any bound here by orders of magnitude.

/** Milliseconds of CPU (user + system, every thread of this process) since `since` (a process.cpuUsage()). */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** Runs fn and returns its result with the CPU milliseconds it took. */
export function cpuTimed<T>(fn: () => T): { result: T; ms: number } {
  const since = process.cpuUsage();
  const result = fn();
  return { result, ms: cpuMsSince(since) };
}
