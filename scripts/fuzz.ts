// `npm run fuzz`: the fuzz suite's long profile (test/fuzz.*.test.ts with FUZZ_PROFILE=long), one
// file after another, then the attachment bombs over SMTP to a started service (rounds of every
// bomb, several copies at once; test/attachment-bombs.test.ts asserts they are stored once and
// final within a minute, the memory bound and /readyz throughout), then the counts of the run and
// the bombs' figures: /readyz latency p50/p99/max and the peak resident memory over idle. A failure prints the seed that replays it:
//   FUZZ_SEED=<seed> [FUZZ_PATH=<path>] bun test test/fuzz.http.test.ts
// Options come from the environment: FUZZ_RUNS (run count of every property), FUZZ_SEED,
// FUZZ_BOMB_ROUNDS (3) and FUZZ_BOMB_COPIES (1) for the bombs, FUZZ_ONLY (run only the files
// whose name contains it, e.g. `FUZZ_ONLY=bombs`), and DATABASE_URL as for the tests (without it the tests start an embedded Postgres).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const files = readdirSync(join(root, "test"))
  .filter((name) => /^fuzz\..+\.test\.ts$/.test(name))
  .sort()
  .concat("attachment-bombs.test.ts")
  .filter((name) => !process.env.FUZZ_ONLY || name.includes(process.env.FUZZ_ONLY));
const statsDir = mkdtempSync(join(tmpdir(), "fuzz-stats-"));
const statsFile = join(statsDir, "stats.jsonl");
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
// The bombs' line holds figures (latencies, memory), not counts to add up: printed as it is.
const bombs = lines.filter((line) => line.file === "attachment-bombs");
const counted = lines.filter((line) => line.file !== "attachment-bombs");
const totals: Record<string, number> = {};
for (const line of counted)
  for (const [key, value] of Object.entries(line))
    if (typeof value === "number" && key !== "seed") totals[key] = (totals[key] ?? 0) + value;
console.log("\n== fuzz run");
for (const line of counted) console.log(`${line.file}: seed ${line.seed}`);
for (const line of bombs)
  console.log(
    `attachment bombs: ${line.bombs} over SMTP in ${line.seconds} s; /readyz p50 ${line.readyz_p50_ms} ms, p99 ${line.readyz_p99_ms} ms, ` +
      `max ${line.readyz_max_ms} ms (${line.readyz_over_100ms} of ${line.readyz_probes} over 100 ms); peak ${line.peak_over_idle_mb} MB over ` +
      `idle (${line.idle_mb} MB), extraction processes at most ${line.children_peak_mb} MB together, ${line.one_extraction_peak_mb} MB one`,
  );
if (bombs.length === 0) console.log("attachment bombs: no figures (skipped or failed)");
console.log(JSON.stringify({ ...totals, minutes: Math.round((Date.now() - started) / 600) / 100, files_failed: failed }));
rmSync(statsDir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
