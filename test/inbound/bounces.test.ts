// Bounces and complaints arrive as inbound mail: a delivery status notification or a feedback
// report about a message this account sent suppresses the recipient; anything else does nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { listSuppressions } from "../../src/core/outbound/suppressions.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { openSmtp, reusableDataDir, waitFor } from "../support/smtp-client.ts";

let ctx: TestContext;
let smtp: SmtpListener;
let worker: WorkerHandle;
let owner: Fixture;
let other: Fixture;
let inbox: { id: string; address: string };
let otherInbox: { id: string; address: string };

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir });
  smtp = await startSmtpListener(ctx.svc, { port: 0 });
  worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  owner = await makeAccount(ctx);
  other = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "sender");
  otherInbox = await makeMailbox(ctx, other, "elsewhere");
});

afterAll(async () => {
  await worker.stop();
  await smtp.close();
  await ctx.close();
});

/** A message this service sent, as the send path records it. */
async function sentMessage(accountId: string, mailbox: { id: string; address: string }, to: string, rfcMessageId: string) {
  await ctx.sql`
    insert into messages (id, account_id, mailbox_id, direction, rfc_message_id, thread_id, from_addr, to_addr, subject)
    values (${`msg_out_${Math.random().toString(36).slice(2)}`}, ${accountId}, ${mailbox.id}, 'out', ${rfcMessageId},
      ${`thr_out_${Math.random().toString(36).slice(2)}`}, ${mailbox.address}, ${to}, 'our offer')`;
}

/**
 * Delivers a report the way a remote MTA does (null reverse path, MAIL FROM:<>) and waits for
 * the worker to have processed it.
 */
async function deliverReport(to: string, raw: string): Promise<void> {
  const conn = await openSmtp(smtp.port);
  try {
    await conn.command("EHLO mx.remote.example");
    expect((await conn.command("MAIL FROM:<>")).code).toBe(250);
    expect((await conn.command(`RCPT TO:<${to}>`)).code).toBe(250);
    expect((await conn.data(raw)).code).toBe(250);
  } finally {
    conn.close();
  }
  const subject = /^Subject: (.*)$/m.exec(raw)![1].trim();
  await waitFor(
    async () => {
      const [row] = await ctx.sql`select processed_at from messages where subject = ${subject}`;
      return row?.processed_at;
    },
    `report '${subject}' to be processed`,
    20_000,
  );
}

function dsn(o: { subject: string; to: string; recipient: string; action: string; status: string; originalMessageId: string }): string {
  return [
    "From: Mail Delivery System <MAILER-DAEMON@mx.remote.example>",
    `To: ${o.to}`,
    `Subject: ${o.subject}`,
    `Message-ID: <${Math.random().toString(36).slice(2)}@mx.remote.example>`,
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=delivery-status; boundary="dsn-boundary"',
    "",
    "--dsn-boundary",
    "Content-Type: text/plain; charset=us-ascii",
    "",
    "This is the mail system at host mx.remote.example. Your message could not be delivered.",
    "",
    "--dsn-boundary",
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.remote.example",
    "Arrival-Date: Mon, 2 Jun 2025 10:00:00 +0000",
    "",
    `Final-Recipient: rfc822; ${o.recipient}`,
    `Original-Recipient: rfc822;${o.recipient}`,
    `Action: ${o.action}`,
    `Status: ${o.status}`,
    `Diagnostic-Code: smtp; ${o.status.startsWith("5") ? "550 5.1.1 user unknown" : "451 4.4.1 try again later"}`,
    "",
    "--dsn-boundary",
    "Content-Type: text/rfc822-headers",
    "",
    `From: ${o.to}`,
    `To: ${o.recipient}`,
    "Subject: our offer",
    `Message-ID: ${o.originalMessageId}`,
    "",
    "--dsn-boundary--",
    "",
  ].join("\r\n");
}

describe("delivery status notifications", () => {
  test("a permanent failure (Action: failed, Status: 5.1.1) about our message suppresses the recipient as bounce", async () => {
    await sentMessage(owner.accountId, inbox, "gone@remote.example", "<offer-1@agents.localhost>");
    await deliverReport(
      inbox.address,
      dsn({
        subject: "Undelivered Mail Returned to Sender",
        to: inbox.address,
        recipient: "Gone@Remote.Example",
        action: "failed",
        status: "5.1.1",
        originalMessageId: "<offer-1@agents.localhost>",
      }),
    );
    const suppressions = await listSuppressions(ctx.sql, owner);
    expect(suppressions.map((s) => [s.address, s.reason])).toEqual([["gone@remote.example", "bounce"]]);
    const [report] = await ctx.sql`select id from messages where subject = 'Undelivered Mail Returned to Sender'`;
    expect(suppressions[0].source_message_id).toBe(report.id);
  });

  test("the report itself is still an ordinary message in the mailbox", async () => {
    const list = await ctx.request("GET", `/api/v1/messages?mailbox_id=${inbox.id}`, { key: owner.key });
    expect(list.body.messages.map((m: any) => m.subject)).toContain("Undelivered Mail Returned to Sender");
  });

  test("a delayed notice (Action: delayed, Status: 4.4.1) suppresses nothing", async () => {
    await sentMessage(owner.accountId, inbox, "slow@remote.example", "<offer-2@agents.localhost>");
    await deliverReport(
      inbox.address,
      dsn({
        subject: "Delayed Mail (still being retried)",
        to: inbox.address,
        recipient: "slow@remote.example",
        action: "delayed",
        status: "4.4.1",
        originalMessageId: "<offer-2@agents.localhost>",
      }),
    );
    const addresses = (await listSuppressions(ctx.sql, owner)).map((s) => s.address);
    expect(addresses).not.toContain("slow@remote.example");
  });

  test("a report about a Message-ID we never sent suppresses nothing", async () => {
    const before = await listSuppressions(ctx.sql, owner);
    await deliverReport(
      inbox.address,
      dsn({
        subject: "Bounce about a stranger",
        to: inbox.address,
        recipient: "victim@remote.example",
        action: "failed",
        status: "5.1.1",
        originalMessageId: "<never-sent@elsewhere.example>",
      }),
    );
    expect(await listSuppressions(ctx.sql, owner)).toEqual(before);
    const [anywhere] = await ctx.sql`select count(*)::int as n from suppressions where address = 'victim@remote.example'`;
    expect(anywhere.n).toBe(0);
  });

  test("a report about another account's message, sent to our mailbox, suppresses nothing for either", async () => {
    await sentMessage(other.accountId, otherInbox, "theirs@remote.example", "<their-offer@agents.localhost>");
    await deliverReport(
      inbox.address,
      dsn({
        subject: "Bounce about their message",
        to: inbox.address,
        recipient: "theirs@remote.example",
        action: "failed",
        status: "5.1.1",
        originalMessageId: "<their-offer@agents.localhost>",
      }),
    );
    const [anywhere] = await ctx.sql`select count(*)::int as n from suppressions where address = 'theirs@remote.example'`;
    expect(anywhere.n).toBe(0);
  });
});

describe("forged reports", () => {
  // Any recipient of our mail knows its Message-ID; a report may only suppress that recipient.
  test("a DSN about our message naming another address suppresses nobody", async () => {
    await sentMessage(owner.accountId, inbox, "bob@remote.example", "<offer-forged-1@agents.localhost>");
    await deliverReport(
      inbox.address,
      dsn({
        subject: "forged bounce",
        to: inbox.address,
        recipient: "ceo@important.example",
        action: "failed",
        status: "5.1.1",
        originalMessageId: "<offer-forged-1@agents.localhost>",
      }),
    );
    const addresses = (await listSuppressions(ctx.sql, owner)).map((s) => s.address);
    expect(addresses).not.toContain("ceo@important.example");
    expect(addresses).not.toContain("bob@remote.example");
  });

  test("a complaint about our message naming another address suppresses nobody", async () => {
    await sentMessage(owner.accountId, inbox, "bob2@remote.example", "<offer-forged-2@agents.localhost>");
    await deliverReport(
      inbox.address,
      [
        "From: bob2@remote.example",
        `To: ${inbox.address}`,
        "Subject: forged complaint",
        "Message-ID: <arf-forged@remote.example>",
        "MIME-Version: 1.0",
        'Content-Type: multipart/report; report-type=feedback-report; boundary="arf-boundary"',
        "",
        "--arf-boundary",
        "Content-Type: message/feedback-report",
        "",
        "Feedback-Type: abuse",
        "Version: 1",
        "Original-Rcpt-To: <ceo@important.example>",
        "",
        "--arf-boundary",
        "Content-Type: text/rfc822-headers",
        "",
        `From: ${inbox.address}`,
        "To: bob2@remote.example",
        "Message-ID: <offer-forged-2@agents.localhost>",
        "",
        "--arf-boundary--",
        "",
      ].join("\r\n"),
    );
    const addresses = (await listSuppressions(ctx.sql, owner)).map((s) => s.address);
    expect(addresses).not.toContain("ceo@important.example");
    expect(addresses).not.toContain("bob2@remote.example");
  });
});

describe("feedback reports (ARF)", () => {
  test("an abuse report about our message suppresses the complainer as complaint", async () => {
    await sentMessage(owner.accountId, inbox, "annoyed@remote.example", "<offer-3@agents.localhost>");
    await deliverReport(
      inbox.address,
      [
        "From: Feedback Loop <fbl@isp.example>",
        `To: ${inbox.address}`,
        "Subject: FW: complaint about your message",
        "Message-ID: <arf-1@isp.example>",
        "MIME-Version: 1.0",
        'Content-Type: multipart/report; report-type=feedback-report; boundary="arf-boundary"',
        "",
        "--arf-boundary",
        "Content-Type: text/plain; charset=us-ascii",
        "",
        "This is an email abuse report for an email message received from IP 192.0.2.1.",
        "",
        "--arf-boundary",
        "Content-Type: message/feedback-report",
        "",
        "Feedback-Type: abuse",
        "User-Agent: SomeGenerator/1.0",
        "Version: 1",
        "Original-Mail-From: <agent-sender@agents.localhost>",
        "Original-Rcpt-To: <annoyed@remote.example>",
        "Arrival-Date: Mon, 2 Jun 2025 10:00:00 +0000",
        "",
        "--arf-boundary",
        "Content-Type: message/rfc822",
        "",
        `From: ${inbox.address}`,
        "To: annoyed@remote.example",
        "Subject: our offer",
        "Message-ID: <offer-3@agents.localhost>",
        "",
        "Buy now.",
        "",
        "--arf-boundary--",
        "",
      ].join("\r\n"),
    );
    const suppression = (await listSuppressions(ctx.sql, owner)).find((s) => s.address === "annoyed@remote.example");
    expect(suppression?.reason).toBe("complaint");
  });
});
