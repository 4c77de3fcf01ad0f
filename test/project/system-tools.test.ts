// The optional system tools: one list of Debian packages (.ci/system-packages) that
// `npm run setup:system` and CI install, equal to what the tests ask for; and a missing tool is a
// skip with a record for the run's summary on a developer's machine, a failure under CI=true.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOOL_PACKAGES } from "../support/system-tools.ts";

const root = join(import.meta.dir, "..", "..");
const listed = readFileSync(join(root, ".ci/system-packages"), "utf8")
  .split("\n")
  .map((line) => line.replace(/#.*/, "").trim())
  .filter(Boolean);

test("the packages CI installs are exactly those the tests' tools come from", () => {
  expect([...listed].sort()).toEqual([...new Set(Object.values(TOOL_PACKAGES).flat())].sort());
});

test("npm run setup:system and .ci/run install from that one list", () => {
  const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts;
  expect(scripts["setup:system"]).toBe("bash scripts/setup-system.sh");
  expect(readFileSync(join(root, "scripts/setup-system.sh"), "utf8")).toContain(".ci/system-packages");
  expect(readFileSync(join(root, ".ci/run"), "utf8")).toContain("bash scripts/setup-system.sh");
});

async function runWithoutTools(env: Record<string, string>) {
  const skips = join(mkdtempSync(join(tmpdir(), "skips-")), "skips.jsonl");
  const child = Bun.spawn([process.execPath, "test", "./test/fixtures/system-tools/needs-tools.ts"], {
    cwd: root,
    // An empty search path: the machine has neither tool, as far as the tests can tell.
    env: { ...process.env, CI: "", REQUIRE_SYSTEM_TOOLS: "", MAILBOX_TEST_TOOL_PATH: "/nonexistent", MAILBOX_TEST_SKIPS: skips, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const code = await child.exited;
  const output = (await new Response(child.stdout).text()) + (await new Response(child.stderr).text());
  let recorded = "";
  try {
    recorded = readFileSync(skips, "utf8");
  } catch {}
  return { code, output, recorded };
}

test("a missing tool skips the tests that need it, says which packages, and records it for the summary", async () => {
  const { code, output, recorded } = await runWithoutTools({});
  expect(code, output).toBe(0);
  expect(output).toContain("1 pass");
  expect(output).toContain("1 skip");
  expect(output).toContain("SKIPPED: test/fixtures/system-tools/needs-tools.ts");
  expect(output).toContain("npm run setup:system");
  expect(JSON.parse(recorded)).toEqual({
    file: "test/fixtures/system-tools/needs-tools.ts",
    what: "the fixture's scanner tests",
    missing: ["clamd", "pgbouncer"],
    packages: ["clamav-daemon", "pgbouncer"],
  });
}, 60_000);

test("under CI=true the same missing tool is a failure, and nothing is recorded as skipped", async () => {
  const { code, output, recorded } = await runWithoutTools({ CI: "true" });
  expect(code).toBe(1);
  expect(output).toContain("1 fail");
  expect(output).toContain("clamd, pgbouncer not installed");
  expect(recorded).toBe("");
}, 60_000);
