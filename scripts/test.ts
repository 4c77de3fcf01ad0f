// `npm test`: every test file in its own `bun test` process, several at once (each file already
// has a database of its own), then one summary. Usage:
//
//   npm test                      every file under test/
//   npm test -- webhooks send     only the files whose path contains one of these words
//   TEST_JOBS=4 npm test          files at once (default: the number of cores, at least 2)
//
// Without DATABASE_URL one embedded PostgreSQL is started for the whole run and stopped at its
// end. Each file runs with a temporary folder of its own (test/support/preload.ts); after the
// file's process exits, a folder or a process still holding it is a leftover, reported and
// failed. Output: one line per file, the whole output of each failing file, the tests skipped
// for a missing system tool with the command that installs them, and a last plain line
// `N passed, N failed` (CI reads it). The exit code is 0 only when nothing failed.
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "../src/db.ts";
import { leftoversOf } from "../test/support/leftovers.ts";

const root = join(import.meta.dirname, "..");
const FILE_LIMIT_MS = 20 * 60_000;
/** The embedded PostgreSQL's max_connections (test/support/database.ts starts one with the same). */
const TEST_MAX_CONNECTIONS = 400;
const TIMINGS_CACHE = join(root, "node_modules", ".cache", "agent-mailbox", "test-timings.json");
const TIMINGS_COMMITTED = join(root, ".ci", "test-timings.json");

type Counts = { pass: number; fail: number; skip: number; todo: number };
type Result = { file: string; ms: number; code: number | null; counts: Counts; output: string; leftovers: string[] };

function testFiles(filters: string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "fixtures" && entry.name !== "support") walk(path);
      } else if (/\.test\.ts$/.test(entry.name)) found.push(relative(root, path));
    }
  };
  walk(join(root, "test"));
  return found.filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter))).sort();
}

function readTimings(): Record<string, number> {
  for (const path of [TIMINGS_CACHE, TIMINGS_COMMITTED]) {
    try {
      return JSON.parse(readFileSync(path, "utf8"));
    } catch {}
  }
  return {};
}

function parseCounts(output: string): Counts {
  const counts: Counts = { pass: 0, fail: 0, skip: 0, todo: 0 };
  // bun test's summary: " 12 pass", " 1 skip", " 0 fail", and " 1 error" for an error outside a test.
  for (const match of output.matchAll(/^\s*(\d+) (pass|fail|skip|todo|errors?)$/gm)) {
    const kind = match[2]!.startsWith("error") ? "fail" : (match[2] as keyof Counts);
    counts[kind] += Number(match[1]);
  }
  return counts;
}

async function runFile(file: string, index: number, runRoot: string, env: Record<string, string>): Promise<Result> {
  const dir = join(runRoot, `file-${index}`);
  const log = join(runRoot, `file-${index}.log`);
  const fd = openSync(log, "w");
  const started = performance.now();
  const child = Bun.spawn([process.execPath, "test", "--timeout", "30000", `./${file}`], {
    cwd: root,
    env: { ...process.env, ...env, MAILBOX_TEST_RUN_DIR: dir },
    stdin: "ignore",
    stdout: fd,
    stderr: fd,
  });
  running.add(child);
  const limit = setTimeout(() => child.kill("SIGTERM"), FILE_LIMIT_MS);
  const code = await child.exited;
  clearTimeout(limit);
  running.delete(child);
  closeSync(fd);
  const ms = performance.now() - started;
  const output = readFileSync(log, "utf8");
  rmSync(log, { force: true });
  const counts = parseCounts(output);
  // A process that died or failed without a counted failure (a crash, an error outside a test).
  if (code !== 0 && counts.fail === 0) counts.fail = 1;
  return { file, ms, code, counts, output, leftovers: await leftoversOf(dir) };
}

const running = new Set<ReturnType<typeof Bun.spawn>>();
/** Set on Ctrl-C or SIGTERM: no file starts after it. */
let stopping = false;

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function printFailure(result: Result): void {
  console.log(`\n==== ${result.file} (exit ${result.code}) ====\n${result.output.trimEnd()}`);
  if (result.leftovers.length > 0) console.log(`left behind:\n  ${result.leftovers.join("\n  ")}`);
  console.log(`==== end of ${result.file} ====\n`);
}

type Skip = { file: string; what: string; missing: string[]; packages: string[] };

function skipSummary(path: string): string[] {
  if (!existsSync(path)) return [];
  const skips: Skip[] = readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  if (skips.length === 0) return [];
  const packages = [...new Set(skips.flatMap((skip) => skip.packages))].sort();
  return [
    "",
    `Skipped for a missing system tool (${skips.length} file${skips.length === 1 ? "" : "s"}):`,
    ...skips.map((skip) => `  ${skip.file}: ${skip.what} (needs ${skip.missing.join(", ")})`),
    `Missing Debian packages: ${packages.join(" ")}`,
    "Install them with: npm run setup:system   (apt-get, as root or through sudo; CI installs the same list)",
  ];
}

async function main(): Promise<number> {
  const filters = process.argv.slice(2);
  const files = testFiles(filters);
  if (files.length === 0) {
    console.error(`no test file matches ${filters.join(" ")}`);
    return 1;
  }
  const jobs = Math.max(1, Number(process.env.TEST_JOBS) || Math.max(2, availableParallelism()));
  const runRoot = mkdtempSync(join(tmpdir(), "mailbox-test-run-"));
  // The embedded PostgreSQL and PgBouncer run as the "postgres" user when tests run as root.
  chmodSync(runRoot, 0o755);
  const skips = join(runRoot, "skips.jsonl");

  let embedded: EmbeddedDatabase | null = null;
  let databaseDir: string | null = null;
  const cleanUp = () => {
    for (const child of running) child.kill("SIGTERM");
    embedded?.stopSync();
    embedded = null;
    rmSync(runRoot, { recursive: true, force: true });
    if (databaseDir) rmSync(databaseDir, { recursive: true, force: true });
  };
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.once(signal, () => {
      stopping = true;
      // The children got the terminal's Ctrl-C too and stop what they started; give them a moment.
      const deadline = Date.now() + 10_000;
      const wait = () => {
        if (running.size > 0 && Date.now() < deadline) return void setTimeout(wait, 100);
        cleanUp();
        process.exit(code);
      };
      for (const child of running) child.kill(signal);
      wait();
    });
  }

  const env: Record<string, string> = { MAILBOX_TEST_SKIPS: skips, MAILBOX_TEST_SHARED_TMPDIR: tmpdir() };
  if (!process.env.DATABASE_URL) {
    databaseDir = mkdtempSync(join(tmpdir(), "mailbox-test-pg-"));
    chmodSync(databaseDir, 0o755);
    const port = 20000 + Math.floor(Math.random() * 20000);
    // Files run side by side, each with its services, workers and spawned service processes:
    // PostgreSQL's default of 100 connections runs out on a busy machine.
    embedded = await startEmbeddedPostgres(databaseDir, port, () => {}, { maxConnections: TEST_MAX_CONNECTIONS });
    env.DATABASE_URL = embedded.url;
  }

  const timings = readTimings();
  // The slowest first, so no long file starts last and keeps the run waiting on one core.
  const queue = [...files].sort((a, b) => (timings[b] ?? 30_000) - (timings[a] ?? 30_000));
  console.log(`${files.length} test files, ${jobs} at a time${embedded ? ", on an embedded PostgreSQL" : ""}`);
  const started = performance.now();
  const results: Result[] = [];
  let next = 0;
  const worker = async () => {
    while (!stopping && next < queue.length) {
      const index = next++;
      const result = await runFile(queue[index]!, index, runRoot, env);
      results.push(result);
      const ok = result.code === 0 && result.leftovers.length === 0;
      const { pass, fail, skip } = result.counts;
      console.log(
        `${ok ? "ok  " : "FAIL"} ${result.file} (${formatSeconds(result.ms)}: ${pass} pass${skip ? `, ${skip} skip` : ""}${fail ? `, ${fail} fail` : ""})`,
      );
      // A failing file's whole output at once, so a long run can be read while it goes on.
      if (!ok && !stopping) printFailure(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, worker));
  const elapsed = performance.now() - started;

  const summary = skipSummary(skips);
  cleanUp();

  const failed = results.filter((result) => result.code !== 0 || result.leftovers.length > 0);
  for (const line of summary) console.log(line);

  if (filters.length === 0) {
    const measured = Object.fromEntries(results.map((result) => [result.file, Math.round(result.ms)]));
    mkdirSync(dirname(TIMINGS_CACHE), { recursive: true });
    writeFileSync(TIMINGS_CACHE, `${JSON.stringify(measured, null, 2)}\n`);
  }

  const total = results.reduce(
    (sum, result) => ({ pass: sum.pass + result.counts.pass, fail: sum.fail + result.counts.fail, skip: sum.skip + result.counts.skip }),
    { pass: 0, fail: 0, skip: 0 },
  );
  const leftovers = results.reduce((sum, result) => sum + result.leftovers.length, 0);
  console.log(
    `\n${files.length} files in ${formatSeconds(elapsed)}, ${jobs} at a time; ${total.skip} skipped` +
      (failed.length ? `; failing files: ${failed.map((result) => result.file).join(", ")}` : "") +
      (leftovers ? `; ${leftovers} leftovers` : ""),
  );
  // The last line, plain, for CI.
  // A file that passed but left something behind counts as one failure.
  const failures = total.fail + failed.filter((result) => result.code === 0).length;
  console.log(`${total.pass} passed, ${failures} failed`);
  return failures === 0 ? 0 : 1;
}

process.exit(await main());
