// The operator CLI run as operators run it: `bun src/cli.ts …` in a subprocess against a fresh
// database. Tests are independent (each makes its own account) so they run concurrently.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createAccount } from "../../src/core/accounts/accounts.ts";
import { principalForSecret } from "../../src/core/accounts/keys.ts";
import { createMailbox } from "../../src/core/mailboxes.ts";
import { makeSql, type Sql } from "../../src/db.ts";
import { makeLogger } from "../../src/log.ts";
import { authenticate } from "../../src/request/auth.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

const root = new URL("../..", import.meta.url).pathname;
let db: TestDatabase;
let sql: Sql;
let scratch: string;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = makeSql(db.url, { max: 4 });
  scratch = mkdtempSync(join(tmpdir(), "cli-test-"));
});

afterAll(async () => {
  for (const child of children) child.kill();
  await Promise.all([...children].map((child) => child.exited));
  await sql.end();
  await db.drop();
});

// Each run starts Bun and connects to Postgres: a few at a time keeps a 2-core machine responsive.
const MAX_PARALLEL = 2;
let running = 0;
const waiting: (() => void)[] = [];
async function slot<T>(work: () => Promise<T>): Promise<T> {
  // A released slot passes straight to the next waiter, so `running` never overshoots.
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

const cli = (...args: string[]) => slot(() => spawnCli(args));

// Children still running when the file ends (a test timed out) are stopped before the database goes.
const children = new Set<ReturnType<typeof Bun.spawn>>();

async function spawnCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, "src/cli.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: "silent" },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 45000,
  });
  children.add(child);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { code, stdout, stderr };
  } finally {
    children.delete(child);
  }
}

async function cliJson(...args: string[]): Promise<any> {
  const run = await cli(...args, "--json");
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(run.stdout);
}

const TIMEOUT = 90000;

const newAccount = async (plan: "free" | "paid" = "free") => (await createAccount(sql, { name: "CLI test", plan })).id;
const services = () => {
  const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: "silent" });
  return { sql, config, log: makeLogger("silent"), resolve: async () => [] } as never;
};

describe("account", () => {
  test.concurrent(
    "create --json prints the account, which is in the database",
    async () => {
      const account = await cliJson("account", "create", "--name", "Acme", "--plan", "paid", "--monthly-quota", "500");
      expect(account).toEqual({
        id: expect.stringMatching(/^acc_[0-9a-z]{24}$/),
        name: "Acme",
        plan: "paid",
        monthly_send_quota: 500,
        created_at: expect.any(String),
      });
      const [row] = await sql`select name, plan, monthly_send_quota from accounts where id = ${account.id}`;
      expect(row).toEqual({ name: "Acme", plan: "paid", monthly_send_quota: 500 });
    },
    TIMEOUT,
  );

  test.concurrent(
    "update without --json prints key: value lines; --monthly-quota default clears the override",
    async () => {
      const id = (await createAccount(sql, { name: "Before", monthlySendQuota: 7 })).id;
      const run = await cli("account", "update", id, "--plan", "paid", "--monthly-quota", "default", "--name", "After");
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(
        `id: ${id}\nname: After\nplan: paid\nmonthly_send_quota: null\ncreated_at: ${run.stdout.match(/created_at: (\S+)/)?.[1]}\n`,
      );
    },
    TIMEOUT,
  );

  test.concurrent(
    "a name the database refuses is a one-line error, not a stack trace",
    async () => {
      const run = await cli("account", "create", "--name", "x".repeat(300));
      expect([1, 2]).toContain(run.code);
      expect(run.stderr).not.toContain("PostgresError");
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stderr).toMatch(/name/);
    },
    TIMEOUT,
  );
});

describe("key", () => {
  test.concurrent(
    "create prints the secret once; it authenticates; list never shows it; revoke makes it unknown",
    async () => {
      const accountId = await newAccount();
      const created = await cliJson("key", "create", "--account", accountId, "--scope", "api", "--name", "agent");
      // A copy: bun's toMatchObject writes its matchers into the object it inspects.
      expect({ ...created }).toMatchObject({
        id: expect.stringMatching(/^key_/),
        account_id: accountId,
        scope: "api",
        mailbox_id: null,
        can_read: true,
        can_send: true,
        name: "agent",
      });
      expect(created.secret).toMatch(/^svc_[A-Za-z0-9_-]{43,}$/);
      expect(created.note).toContain("shown once");
      expect(await principalForSecret(sql, created.secret)).toEqual({
        keyId: created.id,
        accountId,
        plan: "free",
        scope: "api",
        mailboxId: null,
        canRead: true,
        canSend: true,
      });
      expect((await authenticate(sql, `Bearer ${created.secret}`)).keyId).toBe(created.id);

      const listed = await cli("key", "list", "--account", accountId, "--json");
      expect(listed.code).toBe(0);
      expect(listed.stdout).not.toContain(created.secret);
      const keys = JSON.parse(listed.stdout);
      expect(keys.map((k: { id: string }) => k.id)).toEqual([created.id]);
      expect(keys[0]).not.toHaveProperty("secret");
      expect(keys[0].revoked_at).toBeNull();
      expect(created.secret.startsWith(keys[0].key_hint)).toBe(true);

      expect(await cliJson("key", "revoke", created.id)).toEqual({ revoked: true });
      expect(await principalForSecret(sql, created.secret)).toBeNull();
      const [row] = await sql`select revoked_at from api_keys where id = ${created.id}`;
      expect(row!.revoked_at).not.toBeNull();
    },
    TIMEOUT,
  );

  test.concurrent(
    "create --mailbox --no-read --no-send makes a bound key without capabilities",
    async () => {
      const accountId = await newAccount();
      const mailbox = await createMailbox(
        services(),
        { keyId: "key_cli", accountId, plan: "free", scope: "api", mailboxId: null, canRead: true, canSend: true },
        {},
      );
      const created = await cliJson(
        "key",
        "create",
        "--account",
        accountId,
        "--scope",
        "mcp",
        "--mailbox",
        mailbox.id,
        "--no-read",
        "--no-send",
      );
      expect(await principalForSecret(sql, created.secret)).toEqual({
        keyId: created.id,
        accountId,
        plan: "free",
        scope: "mcp",
        mailboxId: mailbox.id,
        canRead: false,
        canSend: false,
      });
    },
    TIMEOUT,
  );

  test.concurrent(
    "create for a missing account is a one-line error, not a database stack trace",
    async () => {
      const run = await cli("key", "create", "--account", "acc_missing", "--scope", "api");
      expect(run).toEqual({ code: 1, stdout: "", stderr: "error: account not found\n" });
    },
    TIMEOUT,
  );
});

describe("mailbox, schema, user", () => {
  test.concurrent(
    "mailbox set turns approval and spam delivery on",
    async () => {
      const accountId = await newAccount();
      const mailbox = await createMailbox(
        services(),
        { keyId: "key_cli", accountId, plan: "free", scope: "api", mailboxId: null, canRead: true, canSend: true },
        {},
      );
      const updated = await cliJson("mailbox", "set", mailbox.id, "--require-approval", "on", "--deliver-spam", "on");
      expect([updated.id, updated.require_approval, updated.deliver_spam]).toEqual([mailbox.id, true, true]);
      const [row] = await sql`select require_approval, deliver_spam from mailboxes where id = ${mailbox.id}`;
      expect(row).toEqual({ require_approval: true, deliver_spam: true });
    },
    TIMEOUT,
  );

  test.concurrent(
    "schema create stores the file's JSON Schema under the account",
    async () => {
      const accountId = await newAccount();
      const schema = { type: "object", properties: { order_id: { type: "string" }, total: { type: "number" } }, required: ["order_id"] };
      const file = join(scratch, "order.json");
      writeFileSync(file, JSON.stringify(schema));
      const created = await cliJson("schema", "create", "--account", accountId, "--file", file);
      expect(created).toEqual({ id: expect.stringMatching(/^sch_/), name: "order.json" });
      const [row] = await sql`select account_id, schema from extraction_schemas where id = ${created.id}`;
      expect(row).toEqual({ account_id: accountId, schema });
    },
    TIMEOUT,
  );

  test.concurrent(
    "schema create with a file that is not JSON is a usage error",
    async () => {
      const notJson = join(scratch, "broken.json");
      writeFileSync(notJson, "{ nope");
      const run = await cli("schema", "create", "--account", await newAccount(), "--file", notJson);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`--file ${notJson} is not a readable JSON file`);
      expect(run.stderr).toContain("usage: npm run cli -- schema create --account ID --file F");
    },
    TIMEOUT,
  );

  test.concurrent(
    "user create stores a lower-cased email and a password hash, never the password",
    async () => {
      const accountId = await newAccount();
      const password = "correct horse battery staple";
      const user = await cliJson("user", "create", "--account", accountId, "--email", "Ops@Example.COM", "--password", password);
      expect(user).toEqual({ id: expect.stringMatching(/^usr_/), email: "ops@example.com" });
      const [row] = await sql`select * from dashboard_users where id = ${user.id}`;
      expect(row!.account_id).toBe(accountId);
      expect(JSON.stringify(row)).not.toContain(password);
    },
    TIMEOUT,
  );

  test.concurrent(
    "a refused value is exit 1 with a one-line error",
    async () => {
      expect(await cli("user", "create", "--account", await newAccount(), "--email", "a@b.example", "--password", "short")).toEqual({
        code: 1,
        stdout: "",
        stderr: "error: password must be at least 12 characters\n",
      });
    },
    TIMEOUT,
  );
});

describe("usage errors exit 2 with a usage line", () => {
  test.concurrent(
    "a missing required option",
    async () => {
      const run = await cli("key", "create", "--account", "acc_x");
      expect(run).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "--scope is required\nusage: npm run cli -- key create --account ID --scope bootstrap|api|mcp [--mailbox ID] [--no-read] [--no-send] [--name N]\n",
      });
    },
    TIMEOUT,
  );

  test.concurrent(
    "an unknown option",
    async () => {
      const run = await cli("account", "create", "--name", "A", "--colour", "red");
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("--colour");
      expect(run.stderr).toEndWith("usage: npm run cli -- account create --name N [--plan free|paid] [--monthly-quota N]\n");
    },
    TIMEOUT,
  );

  test.concurrent(
    "a bad enumerated value",
    async () => {
      const run = await cli("account", "create", "--name", "A", "--plan", "gold");
      expect(run).toEqual({
        code: 2,
        stdout: "",
        stderr: "--plan must be one of free, paid\nusage: npm run cli -- account create --name N [--plan free|paid] [--monthly-quota N]\n",
      });
    },
    TIMEOUT,
  );

  test.concurrent(
    "an unknown command names it and prints the full usage",
    async () => {
      const run = await cli("frobnicate", "now");
      expect(run.code).toBe(2);
      expect(run.stderr).toStartWith("unknown command: frobnicate now\nusage: npm run cli -- <command> [options] [--json]\n");
      for (const command of [
        "account create",
        "account update",
        "key create",
        "key revoke",
        "key list",
        "mailbox set",
        "schema create",
        "user create",
      ]) {
        expect(run.stderr).toContain(`\n  ${command} `);
      }
    },
    TIMEOUT,
  );

  test.concurrent(
    "arguments are checked before the database is touched (an unreachable DATABASE_URL still gives usage)",
    async () => {
      const run = await slot(async () =>
        Bun.spawnSync([process.execPath, "src/cli.ts", "account", "create"], {
          cwd: root,
          env: { ...process.env, DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" },
          timeout: 20000,
        }),
      );
      expect(run.stderr.toString()).toContain("usage: npm run cli -- account create");
      expect(run.exitCode).toBe(2);
    },
    TIMEOUT,
  );
});
