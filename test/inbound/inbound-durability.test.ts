// The listener's promise: 250 only once the message and its job are committed, a 4xx whenever
// they are not, and never anything half-stored. Proven against a database that goes away
// mid-session, a connection that dies mid-transaction, and a process killed around the reply.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { makeSql, type Sql } from "../../src/db.ts";
import { startWorker } from "../../worker/runner.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { urlFor } from "../support/database.ts";
import { contextServiceEnv } from "../support/service-process.ts";
import { deliverRaw, freePort, openSmtp, reusableDataDir, sendMail, waitFor } from "../support/smtp-client.ts";

let ctx: TestContext;
let smtp: SmtpListener;
let admin: Sql;
let databaseName: string;
let inbox: { id: string; address: string };

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir });
  smtp = await startSmtpListener(ctx.svc, { port: 0 });
  const url = new URL(ctx.config.databaseUrl!);
  databaseName = url.pathname.slice(1);
  // The server's maintenance database: it stays reachable while the test database is shut.
  admin = makeSql(urlFor(ctx.config.databaseUrl!, "postgres"), { max: 1 });
  inbox = await makeMailbox(ctx, await makeAccount(ctx), "durable");
});

afterAll(async () => {
  await admin.unsafe(`alter database ${databaseName} allow_connections = true`).catch(() => {});
  await smtp.close();
  await admin.end();
  // postgres.js's end() without a timeout never resolves once its connections were terminated
  // under it (seen with 3.4.9); a timeout closes them, and close() then ends at once.
  await ctx.sql.end({ timeout: 2 });
  await ctx.close();
});

async function stored(subject: string) {
  const [counts] = await ctx.sql`
    select
      (select count(*)::int from messages where subject = ${subject}) as messages,
      (select count(*)::int from raw_messages where encode(content, 'escape') like ${`%Subject: ${subject}%`}) as raw,
      (select count(*)::int from graphile_worker._private_jobs j join messages m on m.id = j.payload->>'message_id'
        where m.subject = ${subject}) as jobs,
      (select count(*)::int from graphile_worker._private_jobs) as all_jobs`;
  return counts as { messages: number; raw: number; jobs: number; all_jobs: number };
}

describe("the database goes away mid-session", () => {
  test("after RCPT the database refuses connections: DATA gets a 4xx, nothing is half-stored, a retry is stored", async () => {
    const before = await stored("while down");
    const conn = await openSmtp(smtp.port);
    try {
      await conn.command("EHLO client.test");
      expect((await conn.command("MAIL FROM:<sender@example.org>")).code).toBe(250);
      expect((await conn.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);

      await admin.unsafe(`alter database ${databaseName} allow_connections = false`);
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${databaseName} and pid <> pg_backend_pid()`;
      let reply: Awaited<ReturnType<typeof conn.data>>;
      try {
        reply = await conn.data("From: sender@example.org\r\nSubject: while down\r\n\r\nplease keep me\r\n");
      } finally {
        await admin.unsafe(`alter database ${databaseName} allow_connections = true`);
      }
      expect(reply.code).toBeGreaterThanOrEqual(400);
      expect(reply.code).toBeLessThan(500);
      expect(reply.text).toMatch(/^4\d\d 4\.\d+\.\d+ /);

      expect(await stored("while down")).toEqual({ messages: 0, raw: 0, jobs: 0, all_jobs: before.all_jobs });

      // The sending server retries, in the same session: now it is stored, once, with its job.
      expect((await conn.command("MAIL FROM:<sender@example.org>")).code).toBe(250);
      expect((await conn.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
      expect((await conn.data("From: sender@example.org\r\nSubject: while down\r\n\r\nplease keep me\r\n")).code).toBe(250);
      expect(await stored("while down")).toMatchObject({ messages: 1, raw: 1, jobs: 1 });
    } finally {
      conn.close();
    }
  });
});

describe("a real service process (bun src/main.ts)", () => {
  type Child = { port: number; process: ReturnType<typeof Bun.spawn>; stderr: () => Promise<string> };

  async function startService(roles: string): Promise<Child> {
    const port = await freePort();
    const child = Bun.spawn([process.execPath, "src/main.ts"], {
      cwd: resolve(import.meta.dir, "..", ".."),
      // DATA_DIR is the directory where this file's listener already made its certificate: no key generation.
      env: contextServiceEnv(ctx, { ROLES: roles, SMTP_PORT: String(port), HTTP_PORT: String(await freePort()) }),
      stdout: "ignore",
      stderr: "pipe",
    });
    const stderr = () => new Response(child.stderr as ReadableStream).text();
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}: ${await stderr()}`);
        const conn = await openSmtp(port).catch(() => null);
        conn?.close();
        return conn?.greeting.code === 220;
      },
      "the child service to answer SMTP",
      30_000,
    );
    return { port, process: child, stderr };
  }

  test("a listener copy killed while storing: the MTA's retry to the other copy waits on its claim, then is stored once", async () => {
    const child = await startService("smtp");
    const holder = await ctx.sql.reserve();
    const subject = "committed by the killed copy";
    const raw = [
      "From: Lee <lee@example.org>",
      `To: ${inbox.address}`,
      `Subject: ${subject}`,
      "Message-ID: <killed-copy.1@example.org>",
      "Date: Tue, 24 Nov 2026 10:00:00 +0000",
      "",
      "Stored by a listener that died before it answered.",
      "",
    ].join("\r\n");
    const waitingOnLocks = async () =>
      (await ctx.sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)[0]!
        .n;
    try {
      // The child's accept transaction is held after its first-copy claim, before it stores the raw
      // message. Killed there, its transaction is rolled back by the server (the copy committed
      // and then killed before its 250 is test/inbound/inbound-dedupe.test.ts's "the 250 never reached").
      await holder`begin`;
      await holder`lock table raw_messages in exclusive mode`;
      const conn = await openSmtp(child.port);
      await conn.command("EHLO client.test");
      await conn.command("MAIL FROM:<lee@example.org>");
      await conn.command(`RCPT TO:<${inbox.address}>`);
      expect((await conn.command("DATA")).code).toBe(354);
      conn.write(`${raw}.\r\n`);
      await waitFor(async () => (await waitingOnLocks()) === 1, "the child's transaction to wait after its claim");
      child.process.kill("SIGKILL");
      await child.process.exited;
      conn.close();
      // The MTA, without a reply, sends it again to the other copy (this process's listener),
      // which waits on the dead copy's claim ...
      const retry = deliverRaw(smtp.port, { from: "lee@example.org", to: [inbox.address] }, raw);
      await waitFor(async () => (await waitingOnLocks()) === 2, "the retry to wait on the first claim");
      // ... until the dead copy's transaction ends: rolled back, so the retry's claim wins.
      await holder`commit`;
      expect((await retry).data?.code).toBe(250);
      await Bun.sleep(300);
      expect(await stored(subject)).toMatchObject({ messages: 1, raw: 1, jobs: 1 });
    } finally {
      await holder`rollback`.catch(() => {});
      holder.release();
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
    }
  }, 60_000);

  test("SIGKILL right after 250: the message is processed once a worker starts", async () => {
    const child = await startService("smtp");
    let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
    try {
      const info = await sendMail(child.port, { from: "sender@example.org", to: inbox.address, subject: "killed after 250", text: "x" });
      expect(info.response).toMatch(/^250 /);
      child.process.kill("SIGKILL");
      await child.process.exited;
      expect(child.process.signalCode).toBe("SIGKILL");

      const [message] = await ctx.sql`select id, processed_at from messages where subject = 'killed after 250'`;
      expect(message.processed_at).toBeNull();
      expect(await stored("killed after 250")).toMatchObject({ messages: 1, raw: 1, jobs: 1 });

      worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
      const processedAt = await waitFor(
        async () => {
          const [row] = await ctx.sql`select processed_at from messages where id = ${message.id}`;
          return row.processed_at as string | null;
        },
        "processed_at to be set",
        20_000,
      );
      expect(Date.parse(processedAt)).toBeGreaterThan(0);
      // Graphile Worker deletes a job once it succeeded.
      await waitFor(async () => (await stored("killed after 250")).jobs === 0, "the job to complete", 5_000);
    } finally {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
      await worker?.stop();
    }
  }, 60_000);

  test("SIGKILL in the middle of DATA: no reply was given and nothing is stored", async () => {
    const child = await startService("smtp");
    try {
      const conn = await openSmtp(child.port);
      await conn.command("EHLO client.test");
      await conn.command("MAIL FROM:<sender@example.org>");
      expect((await conn.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
      expect((await conn.command("DATA")).code).toBe(354);
      conn.write("From: sender@example.org\r\nSubject: killed mid data\r\n\r\nhalf of the");
      await Bun.sleep(100);
      child.process.kill("SIGKILL");
      await child.process.exited;
      await conn.closed;
      await expect(conn.read(200)).rejects.toThrow(/connection closed/);
      expect(await stored("killed mid data")).toMatchObject({ messages: 0, raw: 0, jobs: 0 });
    } finally {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
    }
  }, 60_000);
  test("its database connection dies inside the storing transaction: 4xx, nothing half-stored, and it keeps serving", async () => {
    // Dies after raw_messages and messages are written, on the attachment insert: the last step
    // before the job, so a half-commit would show. This is what a failover or a killed backend does.
    await ctx.sql.unsafe(`
      create function die_mid_store() returns trigger language plpgsql as $$
      begin
        if new.filename = 'fatal.bin' then perform pg_terminate_backend(pg_backend_pid()); end if;
        return new;
      end $$;
      create trigger die_mid_store before insert on attachments for each row execute function die_mid_store();`);
    const child = await startService("smtp");
    try {
      const error = await sendMail(child.port, {
        from: "sender@example.org",
        to: inbox.address,
        subject: "dies mid transaction",
        text: "x",
        attachments: [{ filename: "fatal.bin", content: Buffer.from("boom") }],
      }).catch((e) => e);
      expect(error.code).toBe("EMESSAGE");
      expect(error.responseCode).toBe(451);
      expect(await stored("dies mid transaction")).toMatchObject({ messages: 0, raw: 0, jobs: 0 });

      // One lost database connection must not take the listener down with every other session.
      await Promise.race([child.process.exited, Bun.sleep(1_500)]);
      const exited = child.process.exitCode;
      const stderr = exited === null ? "" : await child.stderr();
      expect({ exitCode: exited, stderr: stderr.slice(-400) }).toEqual({ exitCode: null, stderr: "" });
      const next = await sendMail(child.port, {
        from: "sender@example.org",
        to: inbox.address,
        subject: "after the lost connection",
        text: "x",
      });
      expect(next.response).toMatch(/^250 /);
    } finally {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
      await ctx.sql.unsafe("drop trigger die_mid_store on attachments; drop function die_mid_store();");
    }
  }, 60_000);
});
