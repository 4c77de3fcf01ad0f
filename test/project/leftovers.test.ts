// Nothing a test process starts survives it: a file that fails before its afterAll, and a file
// interrupted by Ctrl-C, leave no embedded PostgreSQL, no scanner daemon and no temporary folder
// (test/support/run-end.ts, test/support/preload.ts). The fixture runs in a `bun test` process of
// its own with DATABASE_URL unset, so it starts an embedded PostgreSQL like a fresh machine does.
// `npm test` (scripts/test.ts) makes the same check after every file of the suite.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processesHolding } from "../support/leftovers.ts";

const FIXTURE = "./test/fixtures/run-end/starts-and-fails.ts";
const scratch = mkdtempSync(join(tmpdir(), "leftovers-"));
// The embedded PostgreSQL runs as the "postgres" user when tests run as root: it must get through.
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function startFixture(name: string, wait: boolean) {
  const runDir = join(scratch, name);
  const ready = join(scratch, `${name}.ready`);
  const env: Record<string, string | undefined> = {
    ...process.env,
    MAILBOX_TEST_RUN_DIR: runDir,
    FIXTURE_READY: ready,
    FIXTURE_WAIT: wait ? "1" : "0",
  };
  delete env.DATABASE_URL;
  delete env.MAILBOX_TEST_SKIPS;
  const child = Bun.spawn([process.execPath, "test", "--timeout", "120000", FIXTURE], {
    cwd: join(import.meta.dir, "..", ".."),
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { child, runDir, ready };
}

async function settled(runDir: string): Promise<string[]> {
  // A stopped server's last children may take a moment to be gone.
  for (let i = 0; i < 50 && processesHolding(runDir).length > 0; i++) await Bun.sleep(100);
  return processesHolding(runDir);
}

test("a failed file leaves no process and no folder behind", async () => {
  const { child, runDir, ready } = startFixture("failed", false);
  const code = await child.exited;
  const output = (await new Response(child.stdout).text()) + (await new Response(child.stderr).text());
  expect({ ready: existsSync(ready), code }, output).toEqual({ ready: true, code: 1 });
  expect(output).toContain("1 fail");
  expect(output).toContain('Expected: "failing"');
  expect(await settled(runDir)).toEqual([]);
  expect(existsSync(runDir)).toBe(false);
}, 180_000);

test("Ctrl-C in the middle of a file leaves no process and no folder behind", async () => {
  const { child, runDir, ready } = startFixture("interrupted", true);
  const deadline = Date.now() + 150_000;
  while (!existsSync(ready) && child.exitCode === null && Date.now() < deadline) await Bun.sleep(100);
  expect(existsSync(ready)).toBe(true);
  // The embedded PostgreSQL is running now, in the folder.
  expect(processesHolding(runDir).some((holder) => holder.includes("postgres"))).toBe(true);
  child.kill("SIGINT");
  expect(await child.exited).toBe(130);
  expect(await settled(runDir)).toEqual([]);
  expect(existsSync(runDir)).toBe(false);
}, 180_000);
