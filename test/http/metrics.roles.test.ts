// A process without the api role (here ROLES=smtp, as `bun src/main.ts` runs it) serves its own
// counters on METRICS_PORT, under the same token rule as the API's /metrics.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServiceProcess, startService } from "../../bench/chaos/service.ts";
import { loadConfig } from "../../src/config.ts";
import { createAccount } from "../../src/core/accounts/accounts.ts";
import { createMailbox } from "../../src/core/mailboxes.ts";
import { makeSql, type Sql } from "../../src/db.ts";
import { makeLogger } from "../../src/log.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { freePort, reusableDataDir, sendMail } from "../support/smtp-client.ts";

const TOKEN = "role-metrics-token-0123456789";
let database: TestDatabase;
let sql: Sql;
let smtp: ServiceProcess;
let smtpPort: number;
let metricsPort: number;

beforeAll(async () => {
  database = await createTestDatabase();
  sql = makeSql(database.url, { max: 2 });
  [smtpPort, metricsPort] = [await freePort(), await freePort()];
  const env = {
    DATABASE_URL: database.url,
    DATA_DIR: reusableDataDir,
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    INBOUND_AUTH_MODE: "off",
    METRICS_TOKEN: TOKEN,
  };
  smtp = await startService(
    "smtp",
    { ...env, ROLES: "smtp", SMTP_PORT: String(smtpPort), METRICS_PORT: String(metricsPort) },
    mkdtempSync(join(tmpdir(), "mailbox-role-metrics-")),
  );
}, 60_000);
afterAll(async () => {
  await smtp?.kill("SIGTERM");
  await sql?.end();
  await database?.drop();
});

test("ROLES=smtp with METRICS_PORT: /metrics there counts its sessions; without the token, 404", async () => {
  const account = await createAccount(sql, { name: "role metrics" });
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent" });
  const principal = {
    keyId: "key_none",
    accountId: account.id,
    plan: "free" as const,
    scope: "api" as const,
    mailboxId: null,
    canRead: true,
    canSend: true,
  };
  const mailbox = await createMailbox({ sql, config, log: makeLogger("silent") } as never, principal, { slug: "role-metrics" });
  await sendMail(smtpPort, { from: "alice@example.org", to: mailbox.address, subject: "Counted by the smtp copy", text: "Hello." });
  const url = `http://127.0.0.1:${metricsPort}/metrics`;
  expect((await fetch(url)).status).toBe(404);
  expect((await fetch(url, { headers: { authorization: "Bearer nope" } })).status).toBe(404);
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  const text = await response.text();
  expect(text).toContain('mailbox_smtp_messages_total{result="accepted",reason="stored"} 1');
  expect(text).toMatch(/mailbox_queue_jobs\{task="process_inbound"\} 1/);
  // Only /metrics and the probes: the API is not served on that port.
  expect((await fetch(`http://127.0.0.1:${metricsPort}/api/v1/mailboxes`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
    404,
  );
});
