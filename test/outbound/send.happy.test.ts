// POST /api/v1/send on the happy path: the 201 body, the mail as the relay receives it (headers,
// DKIM, RFC 8058 unsubscribe), the stored outbound message, replies in-thread, and the local
// transport delivering into another mailbox of the service.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import {
  BASE_URL,
  deliverInbound,
  type Outbound,
  parseMail,
  rawHeader,
  runCli,
  startOutbound,
  verifySharedDkim,
} from "../support/outbound.ts";

// Subprocesses, the worker and a loaded CI machine need more than the default 5 s.
setDefaultTimeout(30_000);

let o: Outbound;

beforeAll(async () => {
  o = await startOutbound();
});

afterAll(async () => {
  await o.close();
});

const lastAtSink = () => o.sink.messages.at(-1)!;

describe("a plain send", () => {
  let sent: { id: string; thread_id: string; provider_message_id: string };

  beforeAll(async () => {
    const response = await o.send({
      mailbox_id: o.mailbox.id,
      to: "Alice Example <alice@example.org>",
      subject: "Quarterly numbers",
      text: "Hello Alice,\nthe numbers are in.",
    });
    expect(response.status).toBe(201);
    sent = response.body;
  });

  test("201 carries exactly id, thread_id and provider_message_id, all strings", () => {
    expect(Object.keys(sent).sort()).toEqual(["id", "provider_message_id", "thread_id"]);
    expect(sent.id).toMatch(/^msg_/);
    expect(sent.thread_id).toMatch(/^thr_/);
    // The relay's queue id from its 250 reply ("queued as Q...").
    expect(sent.provider_message_id).toBe(lastAtSink().queueId);
  });

  test("the relay receives one message for the bare recipient with the right headers", async () => {
    expect(o.sink.messages).toHaveLength(1);
    const message = lastAtSink();
    expect(message.from).toBe(o.mailbox.address);
    expect(message.to).toEqual(["alice@example.org"]);
    const mail = await parseMail(message.raw);
    expect(mail.from?.value).toEqual([{ address: o.mailbox.address, name: "" }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value : null).toEqual([{ address: "alice@example.org", name: "" }]);
    expect(mail.subject).toBe("Quarterly numbers");
    expect(mail.messageId).toBe(`<${sent.id}@${o.ctx.config.sharedDomain}>`);
    expect(mail.text?.trim()).toBe("Hello Alice,\nthe numbers are in.");
    expect(mail.inReplyTo).toBeUndefined();
  });

  test("the message carries a DKIM signature of the shared domain that verifies against the published key", async () => {
    const raw = lastAtSink().raw;
    const signature = rawHeader(raw, "DKIM-Signature")!.replace(/\s+/g, "");
    expect(signature).toContain(`d=${o.ctx.config.sharedDomain}`);
    expect(await verifySharedDkim(o.ctx, raw)).toEqual(["pass"]);
    // The record `npm run cli -- dkim show` tells an operator to publish is the one that verifies.
    const shown = await runCli(o.ctx, ["dkim", "show", "--json"]);
    expect(shown.code).toBe(0);
    const record = JSON.parse(shown.stdout);
    const selector = /s=([^;]+)/.exec(signature)![1];
    expect(record).toMatchObject({ name: `${selector}._domainkey.${o.ctx.config.sharedDomain}`, type: "TXT" });
    expect(await verifySharedDkim(o.ctx, raw, record.value)).toEqual(["pass"]);
    const tampered = Buffer.from(raw.toString("latin1").replace("Quarterly numbers", "Quarterly numberz"), "latin1");
    expect(await verifySharedDkim(o.ctx, tampered)).toEqual(["fail"]);
  });

  test("List-Unsubscribe offers an https one-click link and a mailto, with List-Unsubscribe-Post", () => {
    const raw = lastAtSink().raw;
    const header = rawHeader(raw, "List-Unsubscribe")!;
    const escaped = BASE_URL.replace(/\./g, "\\.");
    expect(header).toMatch(
      new RegExp(
        `^<${escaped}/unsubscribe/[0-9a-z]{32}>, *<mailto:unsubscribe-[0-9a-z]{32}@${o.ctx.config.sharedDomain.replace(/\./g, "\\.")}\\?subject=unsubscribe>$`,
      ),
    );
    // One token serves both links.
    const [, viaUrl] = /unsubscribe\/([0-9a-z]{32})/.exec(header)!;
    const [, viaMail] = /unsubscribe-([0-9a-z]{32})@/.exec(header)!;
    expect(viaUrl).toBe(viaMail);
    expect(rawHeader(raw, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
  });

  test("GET /messages/{id} returns the stored outbound message", async () => {
    const detail = await o.ctx.request("GET", `/api/v1/messages/${sent.id}`, { key: o.owner.key });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: sent.id,
      mailbox_id: o.mailbox.id,
      direction: "out",
      rfc_message_id: `<${sent.id}@${o.ctx.config.sharedDomain}>`,
      provider_message_id: sent.provider_message_id,
      thread_id: sent.thread_id,
      in_reply_to: null,
      from_addr: o.mailbox.address,
      to_addr: "alice@example.org",
      subject: "Quarterly numbers",
      body_clean: "Hello Alice,\nthe numbers are in.",
      attachments: [],
    });
  });

  test("the outbound message is listed beside inbound mail, newest first", async () => {
    const inboundId = await deliverInbound(o.ctx, o.mailbox.id, { from: "bob@example.net", subject: "Inbound one" });
    const list = await o.ctx.request("GET", `/api/v1/messages?mailbox_id=${o.mailbox.id}`, { key: o.owner.key });
    expect(list.status).toBe(200);
    const rows = list.body.messages.map((m: { id: string; direction: string }) => [m.id, m.direction]);
    expect(rows).toContainEqual([sent.id, "out"]);
    expect(rows).toContainEqual([inboundId, "in"]);
    expect(rows.findIndex((r: string[]) => r[0] === inboundId)).toBeLessThan(rows.findIndex((r: string[]) => r[0] === sent.id));
  });

  test("without client_id every request is a new send", async () => {
    const before = o.sink.messages.length;
    const body = { mailbox_id: o.mailbox.id, to: "carol@example.org", text: "twice" };
    const first = await o.send(body);
    const second = await o.send(body);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.id).not.toBe(second.body.id);
    expect(o.sink.messages.length).toBe(before + 2);
  });

  test("an omitted subject is sent as an empty subject", async () => {
    const response = await o.send({ mailbox_id: o.mailbox.id, to: "dave@example.org", text: "no subject" });
    expect(response.status).toBe(201);
    const detail = await o.ctx.request("GET", `/api/v1/messages/${response.body.id}`, { key: o.owner.key });
    expect(detail.body.subject).toBe("");
  });
});

describe("replying with reply_to_message_id", () => {
  test("recipient, subject (Re: once), thread, In-Reply-To and References come from the original", async () => {
    const originalId = await deliverInbound(o.ctx, o.mailbox.id, {
      from: "Erin <erin@example.org>",
      subject: "Question about the invoice",
      messageId: "<q-1@example.org>",
      references: "<root-0@example.org>",
    });
    const original = (await o.ctx.request("GET", `/api/v1/messages/${originalId}`, { key: o.owner.key })).body;

    const response = await o.send({ mailbox_id: o.mailbox.id, reply_to_message_id: originalId, text: "Here is the answer." });
    expect(response.status).toBe(201);
    expect(response.body.thread_id).toBe(original.thread_id);

    const message = lastAtSink();
    expect(message.to).toEqual(["erin@example.org"]);
    const mail = await parseMail(message.raw);
    expect(mail.subject).toBe("Re: Question about the invoice");
    expect(mail.inReplyTo).toBe("<q-1@example.org>");
    expect(rawHeader(message.raw, "References")!.split(/\s+/)).toEqual(["<root-0@example.org>", "<q-1@example.org>"]);
    expect(await verifySharedDkim(o.ctx, message.raw)).toEqual(["pass"]);

    const stored = (await o.ctx.request("GET", `/api/v1/messages/${response.body.id}`, { key: o.owner.key })).body;
    expect(stored).toMatchObject({
      direction: "out",
      to_addr: "erin@example.org",
      subject: "Re: Question about the invoice",
      thread_id: original.thread_id,
      in_reply_to: "<q-1@example.org>",
    });
  });

  test("an original already starting with Re: (any case) is not stacked", async () => {
    for (const subject of ["Re: Lunch?", "RE: Lunch?", "re:Lunch?"]) {
      const originalId = await deliverInbound(o.ctx, o.mailbox.id, { from: "frank@example.org", subject });
      const response = await o.send({ mailbox_id: o.mailbox.id, reply_to_message_id: originalId, text: "Sure." });
      expect(response.status).toBe(201);
      const mail = await parseMail(lastAtSink().raw);
      expect(mail.subject).toBe(subject);
      expect(mail.subject).not.toMatch(/^re:\s*re:/i);
    }
  });

  test("a reply to our own outbound message goes to its recipient, in the same thread", async () => {
    const first = await o.send({ mailbox_id: o.mailbox.id, to: "gina@example.org", subject: "Offer", text: "An offer." });
    const followUp = await o.send({ mailbox_id: o.mailbox.id, reply_to_message_id: first.body.id, text: "Following up." });
    expect(followUp.status).toBe(201);
    expect(followUp.body.thread_id).toBe(first.body.thread_id);
    const mail = await parseMail(lastAtSink().raw);
    expect(lastAtSink().to).toEqual(["gina@example.org"]);
    expect(mail.subject).toBe("Re: Offer");
    expect(mail.inReplyTo).toBe(`<${first.body.id}@${o.ctx.config.sharedDomain}>`);
  });

  test("explicit to and subject override the original's, the thread stays", async () => {
    const originalId = await deliverInbound(o.ctx, o.mailbox.id, {
      from: "hank@example.org",
      subject: "Hi",
      messageId: "<h-1@example.org>",
    });
    const original = (await o.ctx.request("GET", `/api/v1/messages/${originalId}`, { key: o.owner.key })).body;
    const response = await o.send({
      mailbox_id: o.mailbox.id,
      reply_to_message_id: originalId,
      to: "ivy@example.org",
      subject: "Looping in Ivy",
      text: "FYI",
    });
    expect(response.status).toBe(201);
    expect(response.body.thread_id).toBe(original.thread_id);
    const mail = await parseMail(lastAtSink().raw);
    expect(lastAtSink().to).toEqual(["ivy@example.org"]);
    expect(mail.subject).toBe("Looping in Ivy");
    expect(mail.inReplyTo).toBe("<h-1@example.org>");
  });
});

describe("the local transport", () => {
  let local: TestContext;
  let owner: Awaited<ReturnType<typeof makeAccount>>;
  let from: { id: string; address: string };
  let to: { id: string; address: string };

  beforeAll(async () => {
    local = await makeTestContext({ DELIVERY_TRANSPORT: "local", PUBLIC_BASE_URL: BASE_URL });
    owner = await makeAccount(local);
    from = await makeMailbox(local, owner, "writer");
    const other = await makeAccount(local);
    to = await makeMailbox(local, other, "reader");
    (to as { key?: string }).key = other.key;
  });

  afterAll(async () => {
    await local.close();
  });

  test("mail to another mailbox of the service arrives there as inbound mail, readable through the API", async () => {
    const response = await local.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: from.id, to: to.address, subject: "Local hello", text: "Across mailboxes." },
    });
    expect(response.status).toBe(201);
    expect(response.body.provider_message_id).toMatch(/^local:msg_/);
    const readerKey = (to as { key?: string }).key!;
    const list = await local.request("GET", `/api/v1/messages?mailbox_id=${to.id}`, { key: readerKey });
    expect(list.status).toBe(200);
    expect(list.body.messages).toHaveLength(1);
    expect(list.body.messages[0]).toMatchObject({ direction: "in", from_addr: from.address, to_addr: to.address, subject: "Local hello" });
    const inboundId = response.body.provider_message_id.slice("local:".length);
    expect(list.body.messages[0].id).toBe(inboundId);
    const detail = await local.request("GET", `/api/v1/messages/${inboundId}`, { key: readerKey });
    expect(detail.body).toMatchObject({
      direction: "in",
      rfc_message_id: `<${response.body.id}@${local.config.sharedDomain}>`,
      body_clean: "Across mailboxes.",
    });
    // The sender sees its own copy as outbound.
    const mine = await local.request("GET", `/api/v1/messages/${response.body.id}`, { key: owner.key });
    expect(mine.body).toMatchObject({ direction: "out", to_addr: to.address });
  });

  test("mail to anyone else is kept in the local outbox, listed by the CLI", async () => {
    const response = await local.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: from.id, to: "outsider@example.com", subject: "Kept", text: "Stays here." },
    });
    expect(response.status).toBe(201);
    expect(response.body.provider_message_id).toMatch(/^outbox:/);
    const [row] =
      await local.sql`select id, mail_from, rcpt_to, message_id, raw from local_outbox where id = ${response.body.provider_message_id.slice("outbox:".length)}`;
    expect(row).toMatchObject({
      mail_from: from.address,
      rcpt_to: "outsider@example.com",
      message_id: `${response.body.id}@${local.config.sharedDomain}`,
    });
    expect((await parseMail(Buffer.from(row!.raw))).subject).toBe("Kept");
    const listed = await runCli(local, ["outbox", "list", "--json"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((e: { id: string }) => e.id)).toContain(row!.id);
  });

  test("an unknown mailbox on the shared domain is a permanent rejection (400, retryable false)", async () => {
    const response = await local.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: from.id, to: `agent-nobody@${local.config.sharedDomain}`, text: "?" },
    });
    expect(response.status).toBe(400);
    expect(response.body.retryable).toBe(false);
    expect(Object.keys(response.body).sort()).toEqual(["error", "retryable"]);
  });
});
