// Optional system tools some tests need (virus and spam scanners, a browser, OCR, PgBouncer),
// and the one place that decides what happens when one is missing:
//
// - on a developer's machine, the tests that need it are skipped, never failed: the file says so
//   on stderr and records the skip for the summary scripts/test.ts prints at the end of `npm test`
//   (the packages missing and `npm run setup:system`, which installs them);
// - wherever CI=true (or REQUIRE_SYSTEM_TOOLS=1), a missing tool is a failing test, so CI proves
//   the whole suite ran.
//
// The Debian packages named here are those of .ci/system-packages, which `npm run setup:system`
// and .ci/run both install (test/project/system-tools.test.ts keeps the two lists equal).
import { test } from "bun:test";
import { accessSync, appendFileSync, constants } from "node:fs";
import net from "node:net";
import { relative } from "node:path";

export type SystemTool = "clamd" | "spamd" | "rspamd" | "redis" | "pgbouncer" | "pdftoppm" | "tesseract" | "chromium";

// Debian puts the daemons in /usr/sbin, which a non-root PATH often lacks. MAILBOX_TEST_TOOL_PATH
// replaces the whole search path, MAILBOX_TEST_CHROMIUM the browser's path: pointed at nothing,
// they show what a machine without the tools does (test/project/system-tools.test.ts).
const SEARCH_PATH =
  process.env.MAILBOX_TEST_TOOL_PATH ?? [process.env.PATH ?? "", "/usr/sbin", "/usr/local/sbin"].filter(Boolean).join(":");
/** Where the browser tests find Chromium (Debian's `chromium` package). */
export const CHROMIUM_PATH = process.env.MAILBOX_TEST_CHROMIUM ?? "/usr/bin/chromium";
/** The Redis Rspamd's Bayes uses in tests. */
export const TEST_REDIS = process.env.RSPAMD_TEST_REDIS ?? "127.0.0.1:6379";

/** Each tool's Debian packages: what `npm run setup:system` installs for it. */
export const TOOL_PACKAGES: Record<SystemTool, string[]> = {
  clamd: ["clamav-daemon"],
  spamd: ["spamassassin", "spamc", "spamd"],
  rspamd: ["rspamd"],
  redis: ["redis-server"],
  pgbouncer: ["pgbouncer"],
  pdftoppm: ["poppler-utils"],
  tesseract: ["tesseract-ocr"],
  chromium: ["chromium", "fonts-liberation"],
};

/** The binary's path, or null. A test may point a tool at an absent path to see the skip path work. */
export function toolBinary(tool: Exclude<SystemTool, "redis" | "chromium">): string | null {
  return Bun.which(tool, { PATH: SEARCH_PATH });
}

function redisAnswers(): Promise<boolean> {
  const [host, port] = TEST_REDIS.split(":");
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), host!);
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), 2_000);
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk: Buffer) => done(chunk.toString().startsWith("+PONG")));
    socket.on("error", () => done(false));
  });
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function present(tool: SystemTool): Promise<boolean> {
  if (tool === "chromium") return isExecutable(CHROMIUM_PATH);
  if (tool === "redis") return redisAnswers();
  return toolBinary(tool) !== null;
}

/** CI=true (or REQUIRE_SYSTEM_TOOLS=1): every optional tool must be there, a skip would hide tests. */
export const toolsRequired = process.env.CI === "true" || process.env.REQUIRE_SYSTEM_TOOLS === "1";

/** The tools of this list that are missing here. */
export async function missingTools(tools: SystemTool[]): Promise<SystemTool[]> {
  const missing: SystemTool[] = [];
  for (const tool of tools) if (!(await present(tool))) missing.push(tool);
  return missing;
}

/**
 * Whether the tests of `file` (import.meta.path) that need these tools can run. When one is
 * missing the caller skips them (describe.skipIf(!have)) and this says so; under CI it adds a
 * failing test instead.
 */
export async function needTools(file: string, tools: SystemTool[], what = "its tests"): Promise<boolean> {
  const missing = await missingTools(tools);
  if (missing.length === 0) return true;
  const name = relative(process.cwd(), file);
  const packages = [...new Set(missing.flatMap((tool) => TOOL_PACKAGES[tool]))];
  const why = `${missing.join(", ")} not installed (Debian packages: ${packages.join(" ")}; \`npm run setup:system\` installs every one)`;
  if (toolsRequired) {
    test(`the system tools for ${what} are installed (CI: a skip would hide tests)`, () => {
      throw new Error(`${name}: ${why}`);
    });
    return false;
  }
  console.warn(`SKIPPED: ${name}: ${what}: ${why}`);
  const record = process.env.MAILBOX_TEST_SKIPS;
  if (record) appendFileSync(record, `${JSON.stringify({ file: name, what, missing, packages })}\n`);
  return false;
}
