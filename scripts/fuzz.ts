// `npm run fuzz`: the fuzz suite's long profile (test/fuzz.*.test.ts with FUZZ_PROFILE=long), one
// file after another, then the counts of the run. A failure prints the seed that replays it:
//   FUZZ_SEED=<seed> [FUZZ_PATH=<path>] bun test test/fuzz.http.test.ts
// Options come from the environment: FUZZ_RUNS (run count of every property), FUZZ_SEED, and
// DATABASE_URL as for the tests (without it the tests start an embedded Postgres).
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const files = readdirSync(join(root, "test"))
  .filter((name) => /^fuzz\..+\.test\.ts$/.test(name))
  .sort();
const statsFile = join(mkdtempSync(join(tmpdir(), "fuzz-stats-")), "stats.jsonl");
const started = Date.now();
let failed = 0;

for (const file of files) {
  console.log(`\n== ${file} (long profile)`);
  const child = Bun.spawn([process.execPath, "test", "--timeout", String(3 * 3600_000), join("test", file)], {
    cwd: root,
    env: { ...process.env, FUZZ_PROFILE: "long", FUZZ_STATS_FILE: statsFile },
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await child.exited) !== 0) failed++;
}

const lines = (() => {
  try {
    return readFileSync(statsFile, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
})();
const totals: Record<string, number> = {};
for (const line of lines)
  for (const [key, value] of Object.entries(line))
    if (typeof value === "number" && key !== "seed") totals[key] = (totals[key] ?? 0) + value;
console.log("\n== fuzz run");
for (const line of lines) console.log(`${line.file}: seed ${line.seed}`);
console.log(JSON.stringify({ ...totals, minutes: Math.round((Date.now() - started) / 600) / 100, files_failed: failed }));
process.exit(failed ? 1 : 0);
