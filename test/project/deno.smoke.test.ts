// The service under Deno, started as `deno task start` does (deno.json), every role in one
// process against a test database: create a mailbox, open the event stream, send to the mailbox
// over SMTP, see the event on the stream, read the message, read the log and the stream with the
// typed client run by Deno as well, then SIGTERM and exit 0.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createAccount } from "../../src/core/accounts/accounts.ts";
import { createKey } from "../../src/core/accounts/keys.ts";
import { makeSql, type Sql } from "../../src/db.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { openSse } from "../support/events.ts";
import { spawnService, waitForStarted } from "../support/service-process.ts";
import { freePort, reusableDataDir, sendMail } from "../support/smtp-client.ts";

const root = new URL("../..", import.meta.url).pathname;
let database: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  database = await createTestDatabase();
  sql = makeSql(database.url, { max: 2 });
});
afterAll(async () => {
  await sql.end({ timeout: 5 });
  await database.drop();
});

test("deno task start: mailbox, SMTP in, event on the stream, read, SIGTERM", async () => {
  const account = await createAccount(sql, { name: "deno", plan: "free" });
  const { secret } = await createKey(sql, { accountId: account.id, scope: "api" });
  const [httpPort, smtpPort] = [await freePort(), await freePort()];
  const service = spawnService(`${root}node_modules/.bin/deno`, ["task", "start"], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      HTTP_PORT: String(httpPort),
      SMTP_PORT: String(smtpPort),
      INBOUND_AUTH_MODE: "off",
      DATA_DIR: reusableDataDir,
      NO_COLOR: "1",
    },
  });
  const { child, exited } = service;
  try {
    await waitForStarted(service, 60_000, "the service did not start under Deno");
    const base = `http://127.0.0.1:${httpPort}`;
    const auth = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
    const created = await fetch(`${base}/api/v1/mailboxes`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ slug: "deno-smoke" }),
    });
    expect(created.status).toBe(201);
    const mailbox = (await created.json()) as { id: string; address: string };
    const stream = await openSse(`${base}/api/v1/events/stream`, secret);
    expect(stream.status).toBe(200);
    await Bun.sleep(200);
    await sendMail(smtpPort, { from: "erin@example.org", to: mailbox.address, subject: "Hello from Deno's SMTP", text: "Served by Deno." });
    const [frame] = await stream.waitFor(1, 30_000);
    const event = JSON.parse(frame!.data);
    expect(event.subject).toBe("Hello from Deno's SMTP");
    const message = await fetch(`${base}/api/v1/messages/${event.message_id}`, { headers: auth });
    expect(message.status).toBe(200);
    expect(((await message.json()) as { body_clean: string }).body_clean).toContain("Served by Deno.");
    // The typed client under Deno too: a page of the log and the first event of its stream.
    const script = `
      const { createMailboxClient } = await import("${root}src/client/index.ts");
      const client = createMailboxClient({ baseUrl: "${base}", apiKey: "${secret}" });
      const page = await client.events.list({ after: "0" });
      const iterator = client.events.stream({ after: "0" });
      const first = await iterator.next();
      console.log(JSON.stringify({ status: page.status, count: page.ok ? page.data.events.length : -1, subject: first.value.event.subject }));
      await iterator.return(undefined);
      Deno.exit(0);`;
    const clientRun = Bun.spawnSync([`${root}node_modules/.bin/deno`, "eval", "--ext=ts", script], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(clientRun.exitCode).toBe(0);
    expect(JSON.parse(clientRun.stdout.toString().trim().split("\n").at(-1)!)).toEqual({
      status: 200,
      count: 1,
      subject: "Hello from Deno's SMTP",
    });
    child.kill("SIGTERM");
    expect(await stream.ended).toBe("end");
    expect(await exited).toBe(0);
    expect(service.output).toContain('"service.stopped"');
    expect(service.output).not.toContain("Listening on");
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}, 90_000);
