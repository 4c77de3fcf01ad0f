// Shared set-up for the outbound suites: a test context wired to the loopback SMTP sink, inbound
// mail fixtures, the real worker, the CLI as a subprocess, and a way to hold a send mid-flight.
import net from "node:net";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { type ParsedMail, simpleParser } from "mailparser";
import { sharedDomainKey } from "../../src/core/domains/dkim.ts";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { startWorker } from "../../worker/runner.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "./context.ts";
import { mailboxRow } from "./mailbox-row.ts";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.ts";

export const BASE_URL = "https://mail.example.test";

export type Outbound = {
  ctx: TestContext;
  sink: SmtpSink;
  owner: Fixture;
  mailbox: { id: string; address: string };
  send(body: unknown, key?: string): ReturnType<TestContext["request"]>;
  close(): Promise<void>;
};

/** A context delivering through the smtp transport to a fresh loopback sink. */
export async function startOutbound(env: Record<string, string> = {}): Promise<Outbound> {
  const sink = await startSmtpSink();
  const ctx = await makeTestContext({
    DELIVERY_TRANSPORT: "smtp",
    SMTP_RELAY_URL: `smtp://127.0.0.1:${sink.port}`,
    PUBLIC_BASE_URL: BASE_URL,
    DELIVERY_TIMEOUT_MS: "3000",
    ...env,
  });
  const owner = await makeAccount(ctx);
  const mailbox = await makeMailbox(ctx, owner, "sender");
  return {
    ctx,
    sink,
    owner,
    mailbox,
    send: (body, key = owner.key) => ctx.request("POST", "/api/v1/send", { key, body }),
    async close() {
      await ctx.close();
      await sink.close();
    },
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Stores an inbound message in a mailbox through the same path the SMTP listener uses. */
export async function deliverInbound(
  ctx: TestContext,
  mailboxId: string,
  mail: { from?: string; subject?: string; messageId?: string; references?: string; text?: string },
): Promise<string> {
  const mailbox = (await mailboxRow(ctx, mailboxId))!;
  const lines = [
    ...(mail.from !== undefined ? [`From: ${mail.from}`] : []),
    `To: ${mailbox.address}`,
    `Subject: ${mail.subject ?? "Hello"}`,
    `Message-ID: ${mail.messageId ?? `<${crypto.randomUUID()}@example.org>`}`,
    ...(mail.references ? [`References: ${mail.references}`] : []),
    "Date: Mon, 1 Jan 2024 10:00:00 +0000",
    "Content-Type: text/plain; charset=utf-8",
    "",
    mail.text ?? "Hi agent.",
    "",
  ];
  const [id] = await acceptInbound(ctx.svc, Buffer.from(lines.join("\r\n")), [mailbox], { remoteIp: null, helo: null, mailFrom: null });
  return id!;
}

export function parseMail(raw: Buffer): Promise<ParsedMail> {
  return simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true });
}

/** The unfolded value of a header in raw message bytes, or null. */
export function rawHeader(raw: Buffer, name: string): string | null {
  const head = raw
    .toString("latin1")
    .split("\r\n\r\n")[0]!
    .replace(/\r\n[ \t]+/g, " ");
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line === undefined ? null : line.slice(name.length + 1).trim();
}

/** DKIM-verifies raw mail against the shared domain's key, or against a given TXT record value. */
export async function verifySharedDkim(ctx: TestContext, raw: Buffer, published?: string): Promise<string[]> {
  const key = await sharedDomainKey(ctx.sql, ctx.config);
  const name = `${key.selector}._domainkey.${ctx.config.sharedDomain}`;
  const record = published ?? `v=DKIM1; k=rsa; p=${key.publicKey}`;
  const resolver = async (query: string, rrtype: string) => {
    if (rrtype === "TXT" && query === name) return [record.match(/.{1,255}/g)!];
    throw Object.assign(new Error("no record"), { code: "ENOTFOUND" });
  };
  const result = await dkimVerify(raw, { resolver } as never);
  return result.results.map((r: { status: { result: string } }) => r.status.result);
}

export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** Runs the real Graphile Worker until `done` holds. */
export async function runWorkerUntil<T>(ctx: TestContext, done: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  const worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  try {
    // Generous: a worker starting and running its jobs on a loaded machine takes seconds; only a
    // failure ever waits this long.
    return await waitFor(done, what, 60_000);
  } finally {
    await worker.stop();
  }
}

/**
 * Holds the account's quota row locked, so a send blocks inside its quota reservation: after it
 * has read its draft and claimed its client_id, before it claims the draft and delivers.
 * `during` runs while the send is provably waiting on that lock.
 */
export async function withSendHeldAtQuota<T>(
  ctx: TestContext,
  accountId: string,
  start: () => Promise<T>,
  during: () => Promise<void>,
): Promise<T> {
  await ctx.sql`
    insert into send_usage (account_id, month, sent) values (${accountId}, date_trunc('month', now() at time zone 'utc')::date, 0)
    on conflict do nothing`;
  const holder = await ctx.sql.reserve();
  let pending: Promise<T> | null = null;
  try {
    await holder`begin`;
    await holder`select 1 from send_usage where account_id = ${accountId} for update`;
    pending = start();
    pending.catch(() => {});
    await waitFor(async () => {
      const [row] = await ctx.sql`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and (query ilike '%send_usage%' or query ilike '%reserve_send%')`;
      return row!.n > 0;
    }, "the send to wait on the quota row");
    // The concurrent request may itself wait on the draft row the held send has locked: let it run
    // until it has finished or is queued on that lock, then release the send.
    let finished = false;
    const concurrent = during().finally(() => {
      finished = true;
    });
    await waitFor(async () => {
      if (finished) return true;
      const [row] = await ctx.sql`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query ilike '%drafts%'`;
      return row!.n > 0;
    }, "the concurrent request to finish or queue behind the send");
    await holder`commit`.catch(() => {});
    await concurrent;
  } finally {
    await holder`commit`.catch(() => {});
    holder.release();
  }
  return pending!;
}

/** Runs the operator CLI as a subprocess against the test database. */
export async function runCli(
  ctx: TestContext,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(["./node_modules/.bin/bun", "src/cli.ts", ...args], {
    cwd: `${import.meta.dir}/../..`,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATABASE_URL: ctx.config.databaseUrl!,
      LOG_LEVEL: "silent",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

export { makeAccount, makeMailbox };
