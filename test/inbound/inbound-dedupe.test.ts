// One message, one copy: an MTA that sends the same message again (it saw our 250, or it never
// did) finds it stored once and pushed to the webhook once. The same Message-ID with other bytes
// is stored as a new message, and so is every message without a Message-ID.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { deliverRaw, openSmtp, reusableDataDir, waitFor } from "../support/smtp-client.ts";
import { type Receiver, startReceiver } from "../support/webhook-receiver.ts";

let ctx: TestContext;
let smtp: SmtpListener;
let worker: WorkerHandle;
let receiver: Receiver;
let inbox: { id: string; address: string };
let other: { id: string; address: string };

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
  smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
  worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  receiver = await startReceiver();
  const account = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, account, "dedupe");
  other = await makeMailbox(ctx, account, "dedupe-other");
  await setWebhook(ctx.svc, { accountId: account.accountId, url: receiver.url, secret: "whsec_dedupe_tests_0123456789" });
});

afterAll(async () => {
  await worker.stop();
  await smtp.close();
  await receiver.close();
  await ctx.close();
});

function message(messageId: string | null, body: string): string {
  const headers = [
    `From: Lee <lee@example.org>`,
    `To: ${inbox.address}`,
    `Subject: ${messageId ?? "no id"}`,
    `Date: Tue, 24 Nov 2026 10:00:00 +0000`,
  ];
  if (messageId) headers.push(`Message-ID: <${messageId}>`);
  return `${headers.join("\r\n")}\r\n\r\n${body}\r\n`;
}

async function stored(subject: string) {
  const rows = await ctx.sql`
    select m.id, m.mailbox_id, (select count(*)::int from webhook_events e where e.message_id = m.id) as events
    from messages m where m.subject = ${subject} order by m.created_at`;
  return rows as unknown as { id: string; mailbox_id: string; events: number }[];
}

/** Waits until every message with this subject was screened, then until the receiver is quiet. */
async function settled(subject: string) {
  await waitFor(async () => {
    const [row] = await ctx.sql`
      select count(*) filter (where processed_at is null)::int as waiting, count(*)::int as total from messages where subject = ${subject}`;
    return row!.total > 0 && row!.waiting === 0;
  }, `messages '${subject}' to be processed`);
  await waitFor(async () => {
    const [row] = await ctx.sql`
      select count(*)::int as pending from webhook_deliveries d join webhook_events e on e.id = d.event_id
      join messages m on m.id = e.message_id where m.subject = ${subject} and d.state = 'pending'`;
    return row!.pending === 0;
  }, `webhooks for '${subject}' to be delivered`);
}

const envelope = () => ({ from: "lee@example.org", to: [inbox.address] });

test("the same message twice, both 250: one message, one event, one webhook request", async () => {
  const raw = message("twice.1@example.org", "Hi, the same bytes twice.");
  const first = await deliverRaw(smtp.port, envelope(), raw);
  const second = await deliverRaw(smtp.port, envelope(), raw);
  expect([first.data?.code, second.data?.code]).toEqual([250, 250]);
  await settled("twice.1@example.org");
  await Bun.sleep(500);
  const rows = await stored("twice.1@example.org");
  expect(rows).toHaveLength(1);
  expect(rows[0]!.events).toBe(1);
  expect(receiver.requests.filter((request) => request.text.includes(rows[0]!.id))).toHaveLength(1);
  expect(await ctx.sql`select 1 from raw_messages where encode(content, 'escape') like ${"%twice.1@example.org%"}`).toHaveLength(1);
});

test("the 250 never reached the client: its retry of the committed message is not stored again", async () => {
  const raw = message("lost-reply.1@example.org", "The sender hung up before it read our reply.");
  const conn = await openSmtp(smtp.port);
  await conn.command("EHLO client.test");
  await conn.command("MAIL FROM:<lee@example.org>");
  await conn.command(`RCPT TO:<${inbox.address}>`);
  expect((await conn.command("DATA")).code).toBe(354);
  // The whole message and its terminator, then the connection is gone before the reply is read.
  conn.write(`${raw}.\r\n`);
  conn.close();
  await waitFor(async () => (await stored("lost-reply.1@example.org")).length === 1, "the first copy to be committed");

  const retry = await deliverRaw(smtp.port, envelope(), raw);
  expect(retry.data?.code).toBe(250);
  await settled("lost-reply.1@example.org");
  await Bun.sleep(500);
  const rows = await stored("lost-reply.1@example.org");
  expect(rows).toHaveLength(1);
  expect(rows[0]!.events).toBe(1);
});

test("two concurrent deliveries of the same bytes store one message", async () => {
  const raw = message("race.1@example.org", "Sent twice at the same moment.");
  const replies = await Promise.all(Array.from({ length: 4 }, () => deliverRaw(smtp.port, envelope(), raw)));
  expect(replies.map((reply) => reply.data?.code)).toEqual([250, 250, 250, 250]);
  await settled("race.1@example.org");
  const rows = await stored("race.1@example.org");
  expect(rows).toHaveLength(1);
  expect(rows[0]!.events).toBe(1);
});

test("a retry that came by another path (other Received lines above the message) is not stored again", async () => {
  const raw = message("other-path.1@example.org", "Retried through the backup MX.");
  expect((await deliverRaw(smtp.port, envelope(), raw)).data?.code).toBe(250);
  const viaBackup =
    "Return-Path: <lee@example.org>\r\n" +
    "Received: from backup-mx.example.org (backup-mx.example.org [192.0.2.7])\r\n\tby mx.example.test; Tue, 24 Nov 2026 10:05:00 +0000\r\n" +
    "Received: from client.example.org by backup-mx.example.org; Tue, 24 Nov 2026 10:00:01 +0000\r\n" +
    raw;
  expect((await deliverRaw(smtp.port, envelope(), viaBackup)).data?.code).toBe(250);
  await settled("other-path.1@example.org");
  const rows = await stored("other-path.1@example.org");
  expect(rows).toHaveLength(1);
  expect(rows[0]!.events).toBe(1);
  // A Received field below the sender's own headers is content: that one is another message.
  const [head, body] = raw.split("\r\n\r\n");
  const inside = `${head}\r\nReceived: from elsewhere; Tue, 24 Nov 2026 10:06:00 +0000\r\n\r\n${body}`;
  expect((await deliverRaw(smtp.port, envelope(), inside)).data?.code).toBe(250);
  await settled("other-path.1@example.org");
  expect(await stored("other-path.1@example.org")).toHaveLength(2);
});

test("the same Message-ID with a different body is a new message", async () => {
  await deliverRaw(smtp.port, envelope(), message("resend.1@example.org", "First version."));
  const again = await deliverRaw(smtp.port, envelope(), message("resend.1@example.org", "Second version, other bytes."));
  expect(again.data?.code).toBe(250);
  await settled("resend.1@example.org");
  const rows = await stored("resend.1@example.org");
  expect(rows).toHaveLength(2);
  expect(rows.map((row) => row.events)).toEqual([1, 1]);
});

test("a message without a Message-ID is stored every time", async () => {
  const raw = message(null, "No Message-ID header at all.");
  await deliverRaw(smtp.port, envelope(), raw);
  await deliverRaw(smtp.port, envelope(), raw);
  await settled("no id");
  expect(await stored("no id")).toHaveLength(2);
});

test("a copy to a second mailbox is stored for that mailbox only", async () => {
  const raw = message("widen.1@example.org", "First to one mailbox, then to two.");
  await deliverRaw(smtp.port, envelope(), raw);
  const wider = await deliverRaw(smtp.port, { from: "lee@example.org", to: [inbox.address, other.address] }, raw);
  expect(wider.data?.code).toBe(250);
  await settled("widen.1@example.org");
  const rows = await stored("widen.1@example.org");
  expect(rows.map((row) => row.mailbox_id).sort()).toEqual([inbox.id, other.id].sort());
});

test("after the window a copy is stored again", async () => {
  const raw = message("old.1@example.org", "Delivered long ago.");
  await deliverRaw(smtp.port, envelope(), raw);
  await settled("old.1@example.org");
  // Eight days pass (the window is seven).
  await ctx.sql`update inbound_first_copies set received_at = now() - interval '8 days' where rfc_message_id like '%old.1@example.org%' returning 1`.then(
    (rows) => expect(rows).toHaveLength(1),
  );
  await deliverRaw(smtp.port, envelope(), raw);
  await settled("old.1@example.org");
  expect(await stored("old.1@example.org")).toHaveLength(2);
});
