// Builds the real services and HTTP app over a fresh database, plus fixtures for accounts and keys.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Config, loadConfig } from "../../src/config.ts";
import { createAccount, type Plan } from "../../src/core/accounts/accounts.ts";
import { stopKeyCache } from "../../src/core/accounts/key-cache.ts";
import { createKey, type NewKey } from "../../src/core/accounts/keys.ts";
import { createMailbox } from "../../src/core/mailboxes.ts";
import { makeServices, type Services } from "../../src/core/services.ts";
import { makeSql, type Sql } from "../../src/db.ts";
import { makeTransport } from "../../src/delivery/index.ts";
import { makeApp } from "../../src/http/app.ts";
import { makeLogger } from "../../src/log.ts";
import { makeResolver } from "../../src/mail/resolver.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";

let sharedDataDir: string | null = null;
/** One scratch data directory per test process (the SMTP listener keeps its TLS certificate there). */
function testDataDir(): string {
  sharedDataDir ??= mkdtempSync(join(tmpdir(), "mailbox-test-data-"));
  return sharedDataDir;
}

export type TestContext = {
  svc: Services;
  sql: Sql;
  config: Config;
  app: ReturnType<typeof makeApp>;
  request(
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  close(): Promise<void>;
};

export async function makeTestContext(env: Record<string, string> = {}): Promise<TestContext> {
  const database: TestDatabase = await createTestDatabase();
  // Inbound auth is off unless a test points DNS_SERVERS at its own DNS server: no test may
  // depend on the outside world's DNS.
  const config = loadConfig({ LOG_LEVEL: "silent", INBOUND_AUTH_MODE: "off", DATA_DIR: testDataDir(), ...env, DATABASE_URL: database.url });
  const sql = makeSql(database.url, { max: 10 });
  const svc: Services = makeServices(
    {
      sql,
      config,
      log: makeLogger(config.logLevel),
      resolve: makeResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
    },
    makeTransport,
  );
  const app = makeApp(svc);
  return {
    svc,
    sql,
    config,
    app,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
        headers["content-type"] ??= "application/json";
      }
      const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      return { status: response.status, body: parsed, text, headers: response.headers };
    },
    async close() {
      // A bounded end: a test may have killed this pool's connections.
      await stopKeyCache(sql);
      await sql.end({ timeout: 5 });
      await database.drop();
    },
  };
}

export type Fixture = { accountId: string; key: string; keyId: string };

export async function makeAccount(ctx: TestContext, options: { plan?: Plan; scope?: NewKey["scope"] } = {}): Promise<Fixture> {
  const account = await createAccount(ctx.sql, { name: "Test account", plan: options.plan ?? "free" });
  const { key, secret } = await createKey(ctx.sql, { accountId: account.id, scope: options.scope ?? "api" });
  return { accountId: account.id, key: secret, keyId: key.id };
}

export async function makeKey(ctx: TestContext, input: NewKey): Promise<string> {
  return (await createKey(ctx.sql, input)).secret;
}

export async function makeMailbox(ctx: TestContext, fixture: Fixture, slug?: string): Promise<{ id: string; address: string }> {
  return createMailbox(
    ctx.svc,
    { keyId: fixture.keyId, accountId: fixture.accountId, plan: "free", scope: "api", mailboxId: null, canRead: true, canSend: true },
    slug ? { slug } : {},
  );
}
