// The README's shell blocks, run as written against the service started by `npm start`: the
// walk-through's curl calls and CLI, with only its placeholders filled in (svc_… the api key the
// first start prints, mbx_… the mailbox the walk-through creates, localhost:3000 the port given to
// this service). An expected-output comment (`# {"id":"mbx_…",...}`) must match what the command
// before it printed. `npm ci`, `npm start`, `npm test` and `npm run setup:system` are the
// environment itself and are only checked to be scripts. Every `npm run` and `npx bun` command in
// README.md and docs/ names a script or a file that exists.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { type ServiceChild, spawnService, waitForStarted } from "../support/service-process.ts";
import { freePort } from "../support/smtp-client.ts";

const root = join(import.meta.dir, "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const scripts: Record<string, string> = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts;

let database: TestDatabase;
let service: ServiceChild;
let env: Record<string, string>;
let port: number;

beforeAll(async () => {
  database = await createTestDatabase();
  port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "readme-"));
  env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    TMPDIR: tmpdir(),
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    HTTP_PORT: String(port),
    SMTP_PORT: String(await freePort()),
    LOG_LEVEL: "info",
  };
  // As a user starts it; in a process group of its own, so npm and the service stop together.
  service = spawnService("npm", ["start"], { cwd: root, env, detached: true });
  await waitForStarted(service, 90_000, "npm start did not start the service");
}, 120_000);

afterAll(async () => {
  if (service?.child.pid && service.child.exitCode === null) {
    process.kill(-service.child.pid, "SIGTERM");
    await service.exited;
  }
  await database?.drop();
});

/** Each ```sh block's logical lines (backslash continuations joined). */
function shellBlocks(markdown: string): string[][] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) =>
    block[1]!
      .replace(/\\\n\s*/g, "")
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
  );
}

/** An expected-output comment as a pattern: … stands for any text within a JSON string. */
function expectedPattern(comment: string): RegExp {
  const escaped = comment.replace(/^#\s*/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(escaped.replaceAll("…", '[^"]*'));
}

const ENVIRONMENT = /^(npm ci\b|npm start\b|npm test\b|npm run setup:system\b)/;

async function sh(command: string): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(["bash", "-c", command], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, output: stdout + stderr };
}

test("the README's shell blocks run as written against a started service", async () => {
  const apiKey = /api key:\s+(svc_\S+)/.exec(service.output)?.[1];
  expect(apiKey, service.output).toBeDefined();
  const fill = (line: string, mailboxId: string | null) => {
    let filled = line.replaceAll("svc_…", apiKey!).replaceAll("localhost:3000", `127.0.0.1:${port}`);
    if (mailboxId) filled = filled.replaceAll("mbx_…", mailboxId);
    return filled;
  };

  const blocks = shellBlocks(readme);
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  let mailboxId: string | null = null;
  let ran = 0;
  for (const block of blocks) {
    const assignments: string[] = [];
    let last: { command: string; output: string } | null = null;
    for (const line of block) {
      if (line.startsWith("#")) {
        // A comment shaped like JSON is the output the command before it prints.
        if (/^#\s*[{[]/.test(line)) {
          expect(last, `no command before ${line}`).not.toBeNull();
          expect(last!.output, `${last!.command} printed something else than ${line}`).toMatch(expectedPattern(line));
        }
        continue;
      }
      if (ENVIRONMENT.test(line)) {
        for (const [, name] of line.matchAll(/npm (?:run )?([\w:]+)/g)) if (name !== "ci") expect(Object.keys(scripts)).toContain(name!);
        continue;
      }
      const command = fill(line, mailboxId);
      if (/^[A-Z_]+=\S+/.test(command) && !command.includes(" && ")) {
        assignments.push(command.replace(/\s+#.*$/, ""));
        continue;
      }
      expect(command, "a placeholder is left").not.toContain("…");
      const { code, output } = await sh([...assignments, command].join("\n"));
      expect({ command, code, output }).toMatchObject({ code: 0 });
      // An API call the README shows must succeed: no contract error body.
      if (command.startsWith("curl")) expect(output, command).not.toMatch(/^\{"error":/);
      mailboxId ??= /"id":"(mbx_[^"]+)"/.exec(output)?.[1] ?? null;
      last = { command, output };
      ran++;
    }
  }
  expect(mailboxId).not.toBeNull();
  expect(ran).toBeGreaterThanOrEqual(5);
}, 120_000);

test("every npm script and file a command in README.md or docs/ names exists", () => {
  const documents = [
    join(root, "README.md"),
    ...readdirSync(join(root, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => join(root, "docs", name)),
  ];
  const missing: string[] = [];
  let checked = 0;
  for (const path of documents) {
    const text = readFileSync(path, "utf8");
    for (const [, name] of text.matchAll(/`npm run (?:--silent )?([\w:-]+)/g)) {
      checked++;
      if (!(name! in scripts)) missing.push(`${path}: npm run ${name}`);
    }
    for (const [, file] of text.matchAll(/`npx bun (?:run )?((?:scripts|bench|src)\/[\w./-]+\.ts)/g)) {
      checked++;
      if (!existsSync(join(root, file!))) missing.push(`${path}: npx bun ${file}`);
    }
    // Bun and Deno are in node_modules/.bin after `npm ci`, not on the PATH: bare commands fail.
    for (const [command] of text.matchAll(/`(?:bun run|bun (?:scripts|bench|src)\/|deno task|deno run)[^`]*`/g))
      missing.push(`${path}: ${command}`);
  }
  expect(missing).toEqual([]);
  expect(checked).toBeGreaterThan(20);
});
