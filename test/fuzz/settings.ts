// How a fuzz run is sized and replayed. `npm test` runs the fast profile (bounded, a fresh seed
// each run); `npm run fuzz` runs the long one. Any failure prints the seed and path that replay it:
//   FUZZ_SEED=<seed> FUZZ_PATH=<path> bun test test/fuzz.http.test.ts
// Environment: FUZZ_PROFILE (fast | long), FUZZ_RUNS (overrides every property's run count),
// FUZZ_SEED, FUZZ_PATH, FUZZ_STATS_FILE (where each file appends its counts, for scripts/fuzz.ts).
import { appendFileSync } from "node:fs";
import fc from "fast-check";

export const profile: "fast" | "long" = process.env.FUZZ_PROFILE === "long" ? "long" : "fast";
const fixedSeed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const replayPath = process.env.FUZZ_PATH || undefined;
const forcedRuns = process.env.FUZZ_RUNS ? Math.max(1, Number(process.env.FUZZ_RUNS)) : undefined;

/** One seed per process, so every property of a file is replayed by one FUZZ_SEED. */
export const seed = Number.isFinite(fixedSeed) ? fixedSeed! : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;

/** Run counts per property: the fast one for `npm test`, the long one for `npm run fuzz`. */
export function runs(fast: number, long: number): number {
  return forcedRuns ?? (profile === "long" ? long : fast);
}

/** Counts for the run's report, by file (bun may run several files in one process: each resets them). */
export const stats = { requests: 0, mcpCalls: 0, smtpSessions: 0, messages: 0, messagesPastParserLimits: 0, refused: 0, failures: 0 };
export function resetStats(): void {
  for (const key of Object.keys(stats) as (keyof typeof stats)[]) stats[key] = 0;
}

/**
 * Checks a property with the run's seed. A failure is re-thrown with the replay line first, and
 * counted; shrinking is skipped (each case is a real request: a minimal one is not worth minutes).
 */
export async function check<T>(
  name: string,
  property: fc.IAsyncPropertyWithHooks<T> | fc.IAsyncProperty<T>,
  numRuns: number,
): Promise<void> {
  try {
    await fc.assert(property, { seed, numRuns, endOnFailure: true, ...(replayPath ? { path: replayPath } : {}) });
  } catch (error) {
    stats.failures++;
    const cause = (error as { cause?: unknown })?.cause;
    const details = [String((error as Error)?.message ?? error), cause ? `cause: ${String((cause as Error)?.message ?? cause)}` : ""].join(
      "\n",
    );
    const path = /path: "([^"]*)"/.exec(details)?.[1] ?? "";
    const replay = `FUZZ_SEED=${seed}${path ? ` FUZZ_PATH=${path}` : ""}`;
    console.error(`fuzz property "${name}" failed; replay with: ${replay}`);
    throw new Error(`fuzz property "${name}" failed (replay: ${replay})\n${details}`);
  }
}

/** Appends this file's counts to FUZZ_STATS_FILE, if set (scripts/fuzz.ts sums them). */
export function reportStats(file: string): void {
  const target = process.env.FUZZ_STATS_FILE;
  if (target) appendFileSync(target, `${JSON.stringify({ file, seed, profile, ...stats })}\n`);
  console.log(`fuzz ${file}: seed ${seed}, profile ${profile}, ${JSON.stringify(stats)}`);
}
