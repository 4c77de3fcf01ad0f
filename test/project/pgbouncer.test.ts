// The API and SMTP roles through a real PgBouncer in transaction pooling mode
// (DATABASE_POOL_MODE=transaction), the worker and the event stream's LISTEN direct
// (DATABASE_DIRECT_URL), each role its own `bun src/main.ts` process: mail received over SMTP is
// screened and read over HTTP, a send goes out, and the event reaches a stream client.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServiceProcess, startService } from "../../bench/chaos/service.ts";
import { createAccount } from "../../src/core/accounts/accounts.ts";
import { createKey } from "../../src/core/accounts/keys.ts";
import { makeSql, type Sql } from "../../src/db.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { type Bouncer, startPgBouncer } from "../support/pgbouncer.ts";
import { freePort, reusableDataDir, sendMail, waitFor } from "../support/smtp-client.ts";
import { needTools } from "../support/system-tools.ts";

const havePgBouncer = await needTools(import.meta.path, ["pgbouncer"], "the roles through a real PgBouncer");

let database: TestDatabase;
let bouncer: Bouncer;
let direct: Sql;
let api: ServiceProcess;
let worker: ServiceProcess;
let httpPort: number;
let smtpPort: number;

describe.skipIf(!havePgBouncer)("through PgBouncer in transaction pooling mode", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    bouncer = await startPgBouncer(database.url);
    direct = makeSql(database.url, { max: 2 });
    [httpPort, smtpPort] = [await freePort(), await freePort()];
    const runDir = mkdtempSync(join(tmpdir(), "mailbox-pgbouncer-run-"));
    const env = {
      DATABASE_URL: bouncer.urlFor(database.url),
      DATABASE_DIRECT_URL: database.url,
      DATABASE_POOL_MODE: "transaction",
      DATA_DIR: reusableDataDir,
      HOST: "127.0.0.1",
      INBOUND_AUTH_MODE: "off",
      DELIVERY_TRANSPORT: "local",
      LOG_LEVEL: "info",
    };
    api = await startService("api-smtp", { ...env, ROLES: "api,smtp", HTTP_PORT: String(httpPort), SMTP_PORT: String(smtpPort) }, runDir);
    worker = await startService("worker", { ...env, ROLES: "worker", HTTP_PORT: "0", SMTP_PORT: "0" }, runDir);
  }, 90_000);

  afterAll(async () => {
    await api?.kill("SIGTERM");
    await worker?.kill("SIGTERM");
    await direct?.end();
    await bouncer?.stop();
    await database?.drop();
  });

  test("send, receive over SMTP, screen, read and stream, with API and SMTP through PgBouncer", async () => {
    const account = await createAccount(direct, { name: "Pooled", plan: "free" });
    const { secret } = await createKey(direct, { accountId: account.id, scope: "api" });
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${httpPort}${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const created = await call("POST", "/api/v1/mailboxes", { slug: "pooled" });
    expect(created.status).toBe(201);
    const mailbox = created.body as { id: string; address: string };

    // A stream client on the API process: its wake-ups come through the direct LISTEN connection.
    const stream = await fetch(`http://127.0.0.1:${httpPort}/api/v1/events/stream`, { headers: { authorization: `Bearer ${secret}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let streamed = "";
    const streamedSubject = (async () => {
      const decoder = new TextDecoder();
      while (!streamed.includes("Through the bouncer")) {
        const { value, done } = await reader.read();
        if (done) break;
        streamed += decoder.decode(value);
      }
    })();

    await sendMail(smtpPort, {
      from: "alice@example.org",
      to: mailbox.address,
      subject: "Through the bouncer",
      text: "Pooled connections all the way.",
    });
    const message = await waitFor(
      async () => {
        const listed = await call("GET", `/api/v1/messages?mailbox_id=${mailbox.id}`);
        const found = (listed.body.data ?? listed.body.messages ?? listed.body.items ?? []).find(
          (m: any) => m.subject === "Through the bouncer",
        );
        if (!found) return null;
        const detail = await call("GET", `/api/v1/messages/${found.id}`);
        return detail.body.spam_risk || detail.body.classification || detail.body.comprehension ? detail.body : null;
      },
      "the message screened by the worker and readable over HTTP",
      30_000,
    );
    expect(message.subject).toBe("Through the bouncer");
    await Promise.race([streamedSubject, Bun.sleep(15_000)]);
    await reader.cancel();
    expect(streamed).toContain("Through the bouncer");

    const sent = await call("POST", "/api/v1/send", {
      mailbox_id: mailbox.id,
      to: "someone@example.net",
      subject: "Out through the bouncer",
      text: "Sent.",
      client_id: "bouncer-1",
    });
    expect(sent.status).toBe(201);
    const replay = await call("POST", "/api/v1/send", {
      mailbox_id: mailbox.id,
      to: "someone@example.net",
      subject: "Out through the bouncer",
      text: "Sent.",
      client_id: "bouncer-1",
    });
    expect(replay.body.id).toBe(sent.body.id);

    // The API/SMTP process did reach PostgreSQL through PgBouncer.
    const dbName = new URL(database.url).pathname.slice(1);
    expect(bouncer.log()).toContain(`login attempt: db=${dbName}`);
  }, 60_000);
});
