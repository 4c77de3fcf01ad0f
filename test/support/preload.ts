// Loaded before every test file (bunfig.toml [test] preload). Gives the test process a temporary
// folder of its own, so everything a test writes under os.tmpdir() (and every service process a
// test spawns, which inherits TMPDIR) lands in it, and removes it when the process ends, after the
// servers registered with atRunEnd are stopped. scripts/test.ts names the folder
// (MAILBOX_TEST_RUN_DIR) and checks after each file that nothing of it survived.
import { afterAll, setDefaultTimeout } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atRunEnd, runCleanups } from "./run-end.ts";

// bunfig.toml's [test] timeout reaches `npm test` (scripts/test.ts passes --timeout) but not a
// plain `npx bun test <file>`, whose hooks then had 5 s to start an embedded PostgreSQL.
setDefaultTimeout(30_000);

const shared = process.env.MAILBOX_TEST_SHARED_TMPDIR ?? tmpdir();
const named = process.env.MAILBOX_TEST_RUN_DIR;
// This process's own: a `bun test` it starts (test/project/system-tools.test.ts) gets a folder of its own.
delete process.env.MAILBOX_TEST_RUN_DIR;
const runDir = named ?? mkdtempSync(join(shared, "mailbox-test-run-"));
mkdirSync(runDir, { recursive: true });
// The embedded PostgreSQL and PgBouncer run as the "postgres" user when tests run as root.
chmodSync(runDir, 0o755);
process.env.TMPDIR = runDir;
// Caches meant to outlive a run (Rspamd's compiled hyperscan databases) stay in the shared folder.
process.env.MAILBOX_TEST_SHARED_TMPDIR = shared;

// Registered first, so it runs last: after every server that kept files in the folder stopped.
atRunEnd({ sync: () => rmSync(runDir, { recursive: true, force: true }) });

afterAll(runCleanups);
