// Wall-clock time per named stage of one unit of work (a message's screening, its acceptance, a
// webhook attempt), written into that work's log line as stages_ms, so a benchmark or an operator
// can see where a message's time went (docs/performance.md, `npm run bench -- e2e`). Wall clock, not
// CPU: a stage waiting on a scanner, on the database or on the event loop busy with another job
// shows that wait, which is what a message's latency is made of.

export type StageTimes = Record<string, number>;

export type Stopwatch = {
  /** Runs one stage and adds its time to the stage's total (a stage may run more than once). */
  time<T>(stage: string, work: () => Promise<T>): Promise<T>;
  /** Adds a time measured elsewhere, e.g. for stages that ran side by side. */
  add(stage: string, ms: number): void;
  /** Each stage's total so far, in milliseconds to one decimal. */
  readonly times: StageTimes;
};

export function stopwatch(): Stopwatch {
  const times: StageTimes = {};
  const add = (stage: string, ms: number) => {
    times[stage] = Math.round(((times[stage] ?? 0) + ms) * 10) / 10;
  };
  return {
    times,
    add,
    async time<T>(stage: string, work: () => Promise<T>): Promise<T> {
      const start = performance.now();
      try {
        return await work();
      } finally {
        add(stage, performance.now() - start);
      }
    },
  };
}
