// Threads: a reply joins the thread of the earlier message of the same mailbox that its
// In-Reply-To or References name (inbound or outbound); anything else starts a new thread.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { reusableDataDir, sendMail } from "../support/smtp-client.ts";

let ctx: TestContext;
let smtp: SmtpListener;
let owner: Fixture;
let inbox: Mailbox;
let second: Mailbox;
let foreign: Mailbox;

async function mailboxRow(id: string): Promise<Mailbox> {
  const [row] = await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${id}`;
  return row;
}

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir });
  smtp = await startSmtpListener(ctx.svc, { port: 0 });
  owner = await makeAccount(ctx);
  inbox = await mailboxRow((await makeMailbox(ctx, owner, "threads")).id);
  second = await mailboxRow((await makeMailbox(ctx, owner, "second")).id);
  const stranger = await makeAccount(ctx);
  foreign = await mailboxRow((await makeMailbox(ctx, stranger, "foreign")).id);
});

afterAll(async () => {
  await smtp.close();
  await ctx.close();
});

type Headers = { messageId?: string; inReplyTo?: string; references?: string; subject?: string };

/** Stores a message the way the listener does (the same core call) and returns its thread per mailbox. */
async function receive(mailboxes: Mailbox[], headers: Headers): Promise<string[]> {
  const lines = [
    "From: peer@example.org",
    `To: ${mailboxes[0].address}`,
    `Subject: ${headers.subject ?? "thread test"}`,
    headers.messageId ? `Message-ID: ${headers.messageId}` : null,
    headers.inReplyTo ? `In-Reply-To: ${headers.inReplyTo}` : null,
    headers.references ? `References: ${headers.references}` : null,
    "",
    "body",
    "",
  ].filter((line) => line !== null);
  const ids = await acceptInbound(ctx.svc, Buffer.from(lines.join("\r\n")), mailboxes, {
    remoteIp: "127.0.0.1",
    helo: "peer",
    mailFrom: "peer@example.org",
  });
  const rows = await ctx.sql`select id, thread_id from messages where id = any(${ids})`;
  return ids.map((id) => rows.find((row) => row.id === id)!.thread_id as string);
}

describe("replies join the thread", () => {
  test("via In-Reply-To, over real SMTP, and visible through the API", async () => {
    await sendMail(smtp.port, {
      from: "peer@example.org",
      to: inbox.address,
      subject: "Question",
      text: "?",
      messageId: "<q1@example.org>",
    });
    const info = await sendMail(smtp.port, {
      from: "peer@example.org",
      to: inbox.address,
      subject: "Re: Question",
      text: "more",
      messageId: "<q2@example.org>",
      inReplyTo: "<q1@example.org>",
    });
    expect(info.response).toMatch(/^250 /);
    const rows =
      await ctx.sql`select rfc_message_id, thread_id, in_reply_to from messages where mailbox_id = ${inbox.id} and rfc_message_id in ('<q1@example.org>', '<q2@example.org>')`;
    const byId = Object.fromEntries(rows.map((r) => [r.rfc_message_id, r]));
    expect(byId["<q2@example.org>"].thread_id).toBe(byId["<q1@example.org>"].thread_id);
    expect(byId["<q2@example.org>"].in_reply_to).toBe("<q1@example.org>");

    const [reply] = await ctx.sql`select id from messages where rfc_message_id = '<q2@example.org>'`;
    const detail = await ctx.request("GET", `/api/v1/messages/${reply.id}`, { key: owner.key });
    expect(detail.body.thread_id).toBe(byId["<q1@example.org>"].thread_id);
    expect(detail.body.in_reply_to).toBe("<q1@example.org>");
  });

  test("via References alone, even when the newest reference is unknown", async () => {
    const [root] = await receive([inbox], { messageId: "<r1@example.org>" });
    const [reply] = await receive([inbox], { messageId: "<r3@example.org>", references: "<r1@example.org> <r2-never-seen@example.org>" });
    expect(reply).toBe(root);
  });

  test("via References folded over several lines", async () => {
    const [root] = await receive([inbox], { messageId: "<f1@example.org>" });
    const [reply] = await receive([inbox], { references: "<f0@example.org>\r\n <f1@example.org>\r\n\t<f9@example.org>" });
    expect(reply).toBe(root);
  });

  test("a long chain stays in one thread", async () => {
    const [root] = await receive([inbox], { messageId: "<c0@example.org>" });
    let references = "<c0@example.org>";
    for (let i = 1; i <= 5; i++) {
      const [thread] = await receive([inbox], { messageId: `<c${i}@example.org>`, inReplyTo: `<c${i - 1}@example.org>`, references });
      expect(thread).toBe(root);
      references += ` <c${i}@example.org>`;
    }
  });

  test("In-Reply-To names the direct parent: it wins over an older reference in another thread", async () => {
    const [threadA] = await receive([inbox], { messageId: "<pa@example.org>" });
    const [threadB] = await receive([inbox], { messageId: "<pb@example.org>" });
    expect(threadA).not.toBe(threadB);
    const [reply] = await receive([inbox], { inReplyTo: "<pb@example.org>", references: "<pa@example.org>" });
    expect(reply).toBe(threadB);
  });

  test("a reply to a message the agent sent (outbound) lands in the agent's thread", async () => {
    await ctx.sql`
      insert into messages (id, account_id, mailbox_id, direction, rfc_message_id, thread_id, from_addr, to_addr, subject)
      values ('msg_outbound1', ${owner.accountId}, ${inbox.id}, 'out', '<sent-1@agents.localhost>', 'thr_agentsthread1', ${inbox.address}, 'peer@example.org', 'Offer')`;
    const info = await sendMail(smtp.port, {
      from: "peer@example.org",
      to: inbox.address,
      subject: "Re: Offer",
      text: "yes",
      inReplyTo: "<sent-1@agents.localhost>",
      references: "<sent-1@agents.localhost>",
    });
    expect(info.response).toMatch(/^250 /);
    const [reply] = await ctx.sql`select thread_id from messages where mailbox_id = ${inbox.id} and subject = 'Re: Offer'`;
    expect(reply.thread_id).toBe("thr_agentsthread1");

    const list = await ctx.request("GET", `/api/v1/messages?mailbox_id=${inbox.id}&limit=2`, { key: owner.key });
    expect(list.body.messages.map((m: any) => [m.direction, m.subject])).toEqual([
      ["in", "Re: Offer"],
      ["out", "Offer"],
    ]);
  });
});

describe("new threads", () => {
  test("no In-Reply-To and no References: a new thread each time", async () => {
    const [a] = await receive([inbox], { messageId: "<n1@example.org>" });
    const [b] = await receive([inbox], { messageId: "<n2@example.org>" });
    const [c] = await receive([inbox], {});
    expect(new Set([a, b, c]).size).toBe(3);
    for (const thread of [a, b, c]) expect(thread).toMatch(/^thr_/);
    const [used] = await ctx.sql`select count(*)::int as n from messages where thread_id = any(${[a, b, c]})`;
    expect(used.n).toBe(3);
  });

  test("references to ids nobody here has seen: a new thread", async () => {
    const known = await ctx.sql`select distinct thread_id from messages`;
    const [thread] = await receive([inbox], {
      inReplyTo: "<unknown-1@example.org>",
      references: "<unknown-0@example.org> <unknown-1@example.org>",
    });
    expect(known.map((r) => r.thread_id)).not.toContain(thread);
  });

  test("the same Message-ID in another mailbox never joins threads across mailboxes", async () => {
    const [secondThread] = await receive([second], { messageId: "<shared@example.org>" });
    const [replyInInbox] = await receive([inbox], { inReplyTo: "<shared@example.org>" });
    expect(replyInInbox).not.toBe(secondThread);
    const [replyInSecond] = await receive([second], { inReplyTo: "<shared@example.org>" });
    expect(replyInSecond).toBe(secondThread);
  });

  test("nor across accounts", async () => {
    const [foreignThread] = await receive([foreign], { messageId: "<theirs@example.org>" });
    const [mine] = await receive([inbox], { inReplyTo: "<theirs@example.org>", references: "<theirs@example.org>" });
    expect(mine).not.toBe(foreignThread);
    const [ownerOfThread] = await ctx.sql`select distinct mailbox_id from messages where thread_id = ${foreignThread}`;
    expect(ownerOfThread.mailbox_id).toBe(foreign.id);
  });

  test("one message to two mailboxes starts a thread in each, and each reply stays in its own mailbox's", async () => {
    const [inInbox, inSecond] = await receive([inbox, second], { messageId: "<both@example.org>" });
    expect(inInbox).not.toBe(inSecond);
    const [replyInbox, replySecond] = await receive([inbox, second], { inReplyTo: "<both@example.org>" });
    expect(replyInbox).toBe(inInbox);
    expect(replySecond).toBe(inSecond);
  });
});
