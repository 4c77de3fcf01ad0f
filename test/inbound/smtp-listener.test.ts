// The inbound SMTP listener end to end: a real SMTP client over loopback, then the stored message
// read back through the HTTP API with exactly the fields the contract lists.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import net from "node:net";
import tls from "node:tls";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { deliverRaw, openSmtp, reusableDataDir, sendMail, servicesWith } from "../support/smtp-client.ts";

const DETAIL_KEYS = [
  "id",
  "mailbox_id",
  "direction",
  "provider_message_id",
  "rfc_message_id",
  "thread_id",
  "in_reply_to",
  "from_addr",
  "to_addr",
  "subject",
  "body_raw",
  "body_clean",
  "truncated",
  "created_at",
  "comprehension",
  "attachments",
  "auth_results",
  "spam_risk",
  "virus_risk",
].sort();
const LIST_ITEM_KEYS = ["id", "direction", "from_addr", "to_addr", "subject", "created_at", "comprehension"].sort();
const MAX_BYTES = 300_000;

let ctx: TestContext;
let smtp: SmtpListener;
let owner: Fixture;
let stranger: Fixture;
let inbox: { id: string; address: string };
let other: { id: string; address: string };

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir, SMTP_MAX_MESSAGE_BYTES: String(MAX_BYTES), SMTP_MAX_RECIPIENTS: "3" });
  smtp = await startSmtpListener(ctx.svc, { port: 0 });
  owner = await makeAccount(ctx);
  stranger = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "inbox");
  other = await makeMailbox(ctx, owner, "other");
});

afterAll(async () => {
  await smtp.close();
  await ctx.close();
});

async function messagesOf(mailboxId: string) {
  return ctx.sql`select * from messages where mailbox_id = ${mailboxId} order by created_at, id`;
}

describe("accepting mail and reading it back", () => {
  test("a shared-domain mailbox gets 250, and the API returns exactly the contract's fields", async () => {
    const info = await sendMail(smtp.port, {
      from: "Alice <alice@example.org>",
      to: inbox.address,
      subject: "Hello agent",
      text: "Hi there, agent.",
      messageId: "<first-1@example.org>",
    });
    expect(info.response).toMatch(/^250 /);
    expect(info.accepted).toEqual([inbox.address]);

    const list = await ctx.request("GET", `/api/v1/messages?mailbox_id=${inbox.id}`, { key: owner.key });
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(["messages"]);
    expect(list.body.messages).toHaveLength(1);
    const item = list.body.messages[0];
    expect(Object.keys(item).sort()).toEqual(LIST_ITEM_KEYS);
    expect(item).toMatchObject({
      direction: "in",
      from_addr: "alice@example.org",
      to_addr: inbox.address,
      subject: "Hello agent",
      comprehension: null,
    });

    const detail = await ctx.request("GET", `/api/v1/messages/${item.id}`, { key: owner.key });
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body).sort()).toEqual(DETAIL_KEYS);
    expect(detail.body).toMatchObject({
      id: item.id,
      mailbox_id: inbox.id,
      direction: "in",
      provider_message_id: null,
      rfc_message_id: "<first-1@example.org>",
      in_reply_to: null,
      from_addr: "alice@example.org",
      to_addr: inbox.address,
      subject: "Hello agent",
      body_clean: "Hi there, agent.",
      truncated: false,
      comprehension: null,
      attachments: [],
      auth_results: null,
      spam_risk: null,
      virus_risk: null,
    });
    expect(detail.body.body_raw).toContain("Hi there, agent.");
    expect(detail.body.thread_id).toMatch(/^thr_/);
    expect(Number.isNaN(Date.parse(detail.body.created_at))).toBe(false);
    expect(detail.body.created_at).toBe(item.created_at);
  });

  test("a verified custom domain's mailbox is accepted, whatever the case of the address", async () => {
    await ctx.sql`
      insert into domains (id, account_id, name, status, dkim_selector, dkim_private_key, dkim_public_key, records)
      values ('dom_custom1', ${owner.accountId}, 'custom.example', 'verified', 's1', 'k', 'p', '[]'::jsonb)`;
    await ctx.sql`
      insert into mailboxes (id, account_id, domain_id, local_part, domain_name, address)
      values ('mbx_custom1', ${owner.accountId}, 'dom_custom1', 'support', 'custom.example', 'support@custom.example')`;
    const info = await sendMail(smtp.port, { from: "bob@example.org", to: "Support@Custom.Example", subject: "custom", text: "hi" });
    expect(info.response).toMatch(/^250 /);
    const [stored] = await messagesOf("mbx_custom1");
    expect(stored).toMatchObject({ subject: "custom", to_addr: "support@custom.example", account_id: owner.accountId });
  });

  test("what RCPT found is what DATA stores: a domain unverified in between does not turn the 250 into a silent drop", async () => {
    // The listener looks a recipient up once, at RCPT (a mailbox's id, account and address never
    // change, and its row is never deleted). Before, it looked up again after DATA and answered
    // "250 accepted" storing nothing when the answer had changed.
    await ctx.sql`
      insert into domains (id, account_id, name, status, dkim_selector, dkim_private_key, dkim_public_key, records)
      values ('dom_between', ${owner.accountId}, 'between.example', 'verified', 's1', 'k', 'p', '[]'::jsonb)`;
    await ctx.sql`
      insert into mailboxes (id, account_id, domain_id, local_part, domain_name, address)
      values ('mbx_between', ${owner.accountId}, 'dom_between', 'desk', 'between.example', 'desk@between.example')`;
    const conn = await openSmtp(smtp.port);
    try {
      await conn.command("EHLO client.test");
      await conn.command("MAIL FROM:<bob@example.org>");
      expect((await conn.command("RCPT TO:<desk@between.example>")).code).toBe(250);
      await ctx.sql`update domains set status = 'failed' where id = 'dom_between'`;
      const final = await conn.data("Subject: between\r\n\r\nhi\r\n");
      expect(final.text).toMatch(/^250 .*stored 1 message$/);
      // A new transaction is looked up afresh: the domain is no longer ours.
      await conn.command("MAIL FROM:<bob@example.org>");
      expect((await conn.command("RCPT TO:<desk@between.example>")).code).toBe(550);
    } finally {
      conn.close();
    }
    expect((await messagesOf("mbx_between")).map((m) => m.subject)).toEqual(["between"]);
  });

  test("a sub-address local+tag@ reaches local@", async () => {
    const tagged = inbox.address.replace("@", "+newsletters@");
    const info = await sendMail(smtp.port, { from: "news@example.org", to: tagged, subject: "tagged", text: "x" });
    expect(info.response).toMatch(/^250 /);
    const stored = (await messagesOf(inbox.id)).filter((m) => m.subject === "tagged");
    expect(stored).toHaveLength(1);
    expect(stored[0].to_addr).toBe(inbox.address);
  });

  test("one message to two of our mailboxes: one row per mailbox, one raw message", async () => {
    const info = await sendMail(smtp.port, {
      from: "carol@example.org",
      to: [inbox.address, other.address],
      subject: "for both",
      text: "x",
    });
    expect(info.response).toMatch(/^250 .*stored 2 messages/);
    const rows = await ctx.sql`select mailbox_id, raw_message_id from messages where subject = 'for both' order by mailbox_id`;
    expect(rows.map((r) => r.mailbox_id).sort()).toEqual([inbox.id, other.id].sort());
    expect(rows[0].raw_message_id).toBe(rows[1].raw_message_id);
    const [raw] = await ctx.sql`select count(*)::int as n from raw_messages where id = ${rows[0].raw_message_id}`;
    expect(raw.n).toBe(1);
    const [perMessage] = await ctx.sql`
      select count(*)::int as n from graphile_worker._private_jobs j join messages m on m.id = j.payload->>'message_id'
      where m.subject = 'for both'`;
    expect(perMessage.n).toBe(2);
  });

  test("the same mailbox named twice (plain and sub-addressed) is stored once", async () => {
    const tagged = other.address.replace("@", "+a@");
    const info = await sendMail(smtp.port, { from: "dave@example.org", to: [other.address, tagged], subject: "twice", text: "x" });
    expect(info.response).toMatch(/^250 /);
    expect((await messagesOf(other.id)).filter((m) => m.subject === "twice")).toHaveLength(1);
  });
});

describe("refusing what is not ours", () => {
  test("an unknown mailbox on our domain is 550 5.1.1 at RCPT", async () => {
    const result = await deliverRaw(smtp.port, { from: "x@example.org", to: ["agent-nobody@agents.localhost"] }, "Subject: x\r\n\r\nx\r\n");
    expect(result.rcpt[0].code).toBe(550);
    expect(result.rcpt[0].text).toMatch(/^550 5\.1\.1 /);
    expect(result.data).toBeNull();
  });

  test("a foreign domain is 550 5.7.1: never an open relay", async () => {
    for (const to of ["someone@gmail.com", "agent-inbox@agents.localhost.evil.example", "support@custom.example.org"]) {
      const result = await deliverRaw(smtp.port, { from: "x@example.org", to: [to] }, "Subject: x\r\n\r\nx\r\n");
      expect(result.rcpt[0].text).toMatch(/^550 5\.7\.1 /);
    }
    const [count] = await ctx.sql`select count(*)::int as n from raw_messages where mail_from = 'x@example.org'`;
    expect(count.n).toBe(0);
  });

  test("a domain that is registered but not verified is not ours, even where a mailbox row names it", async () => {
    await ctx.sql`
      insert into domains (id, account_id, name, status, dkim_selector, dkim_private_key, dkim_public_key, records)
      values ('dom_pending1', ${owner.accountId}, 'pending.example', 'pending', 's1', 'k', 'p', '[]'::jsonb)`;
    await ctx.sql`
      insert into mailboxes (id, account_id, domain_id, local_part, domain_name, address)
      values ('mbx_pending1', ${owner.accountId}, 'dom_pending1', 'support', 'pending.example', 'support@pending.example')`;
    const result = await deliverRaw(smtp.port, { from: "x@example.org", to: ["support@pending.example"] }, "x");
    expect(result.rcpt[0].text).toMatch(/^550 5\.7\.1 /);
  });

  test("an unknown mailbox on a verified custom domain is 550 5.1.1", async () => {
    await ctx.sql`
      insert into domains (id, account_id, name, status, dkim_selector, dkim_private_key, dkim_public_key, records)
      values ('dom_verified2', ${owner.accountId}, 'verified2.example', 'verified', 's1', 'k', 'p', '[]'::jsonb)`;
    const result = await deliverRaw(smtp.port, { from: "x@example.org", to: ["nobody@verified2.example"] }, "x");
    expect(result.rcpt[0].text).toMatch(/^550 5\.1\.1 /);
  });

  test("nodemailer sees the refusal as an envelope error with the 550", async () => {
    const error = await sendMail(smtp.port, { from: "x@example.org", to: "nobody@elsewhere.example", subject: "x", text: "x" }).catch(
      (e) => e,
    );
    expect(error.code).toBe("EENVELOPE");
    expect(error.responseCode).toBe(550);
  });
});

describe("STARTTLS", () => {
  test("offered in EHLO; after the handshake EHLO no longer offers it", async () => {
    // A bare socket: after 220 the same socket carries the TLS handshake.
    const socket = net.connect(smtp.port, "127.0.0.1");
    const next = () => new Promise<string>((resolve) => socket.once("data", (d: Buffer) => resolve(d.toString())));
    expect(await next()).toMatch(/^220 /);
    socket.write("EHLO client.test\r\n");
    let ehlo = await next();
    while (!/\r\n250 [^\r\n]*\r\n$/.test(ehlo)) ehlo += await next();
    expect(ehlo).toContain("250-STARTTLS");
    socket.write("STARTTLS\r\n");
    expect(await next()).toMatch(/^220 /);
    const secure = tls.connect({ socket, rejectUnauthorized: false, servername: "mx.agents.localhost" });
    await new Promise<void>((resolve, reject) => secure.once("secureConnect", () => resolve()).once("error", reject));
    expect(secure.encrypted).toBe(true);
    secure.write("EHLO client.test\r\n");
    let inner = "";
    while (!/250 [^\r\n]*\r\n$/.test(inner))
      inner += await new Promise<string>((resolve) => secure.once("data", (d: Buffer) => resolve(d.toString())));
    expect(inner).toMatch(/^250-/);
    expect(inner).not.toContain("STARTTLS");
    secure.destroy();
  });

  test("nodemailer with requireTLS delivers over it", async () => {
    const info = await sendMail(
      smtp.port,
      { from: "tls@example.org", to: inbox.address, subject: "over tls", text: "secret" },
      { requireTLS: true },
    );
    expect(info.response).toMatch(/^250 /);
    expect((await messagesOf(inbox.id)).some((m) => m.subject === "over tls")).toBe(true);
  });
});

describe("limits", () => {
  test("SIZE is advertised with the configured limit; a larger declared size is refused at MAIL", async () => {
    const conn = await openSmtp(smtp.port);
    try {
      const ehlo = await conn.command("EHLO client.test");
      expect(ehlo.text).toMatch(new RegExp(`^250[- ]SIZE ${MAX_BYTES}$`, "m"));
      const mail = await conn.command(`MAIL FROM:<big@example.org> SIZE=${MAX_BYTES + 1}`);
      expect(mail.code).toBe(552);
    } finally {
      conn.close();
    }
  });

  test("an oversized message without a declared size is refused with 552 after DATA, and nothing is stored", async () => {
    const body = "x".repeat(998) + "\r\n";
    const message = `Subject: huge\r\n\r\n${body.repeat(Math.ceil((MAX_BYTES + 10_000) / body.length))}`;
    const result = await deliverRaw(smtp.port, { from: "big@example.org", to: [inbox.address] }, message);
    expect(result.data?.code).toBe(552);
    expect((await messagesOf(inbox.id)).some((m) => m.subject === "huge")).toBe(false);
  });

  test("nodemailer sending more than SIZE is refused with 552", async () => {
    const error = await sendMail(smtp.port, {
      from: "big@example.org",
      to: inbox.address,
      subject: "huge2",
      text: "y".repeat(MAX_BYTES + 1000),
    }).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    // nodemailer may refuse client-side from the advertised SIZE, or the server answers 552.
    expect(error.responseCode === 552 || /larger than allowed/.test(error.message)).toBe(true);
  });

  test("more recipients than allowed get 452, and the accepted ones still get the message", async () => {
    const conn = await openSmtp(smtp.port);
    try {
      await conn.command("EHLO client.test");
      await conn.command("MAIL FROM:<many@example.org>");
      const tag = (n: number) => inbox.address.replace("@", `+${n}@`);
      const replies = [];
      for (const n of [1, 2, 3, 4]) replies.push(await conn.command(`RCPT TO:<${tag(n)}>`));
      expect(replies.slice(0, 3).map((r) => r.code)).toEqual([250, 250, 250]);
      expect(replies[3].code).toBe(452);
      expect(replies[3].text).toContain("4.5.3");
      const final = await conn.data("Subject: many\r\n\r\nhi\r\n");
      expect(final.code).toBe(250);
    } finally {
      conn.close();
    }
    expect((await messagesOf(inbox.id)).filter((m) => m.subject === "many")).toHaveLength(1);
  });

  test("an over-long line is refused with 552, and the session goes on", async () => {
    const conn = await openSmtp(smtp.port);
    try {
      await conn.command("EHLO client.test");
      await conn.command("MAIL FROM:<long@example.org>");
      await conn.command(`RCPT TO:<${inbox.address}>`);
      const refused = await conn.data(`Subject: long line\r\n\r\n${"z".repeat(70 * 1024)}\r\n`);
      expect(refused.code).toBe(552);
      expect(refused.text).toContain("line too long");
      await conn.command("MAIL FROM:<long@example.org>");
      await conn.command(`RCPT TO:<${inbox.address}>`);
      expect((await conn.data("Subject: after long line\r\n\r\nfine\r\n")).code).toBe(250);
    } finally {
      conn.close();
    }
    const subjects = (await messagesOf(inbox.id)).map((m) => m.subject);
    expect(subjects).toContain("after long line");
    expect(subjects).not.toContain("long line");
  });

  test("a huge header section (short lines) is refused with 552", async () => {
    const header = Array.from({ length: 270 }, (_, i) => `X-Filler-${i}: ${"h".repeat(1000)}\r\n`).join("");
    const result = await deliverRaw(
      smtp.port,
      { from: "hdr@example.org", to: [inbox.address] },
      `Subject: big header\r\n${header}\r\nbody\r\n`,
    );
    expect(result.data?.code).toBe(552);
    expect(result.data?.text).toContain("header too large");
    expect((await messagesOf(inbox.id)).some((m) => m.subject === "big header")).toBe(false);
  });

  test("an idle session is closed after SMTP_IDLE_TIMEOUT_S", async () => {
    const idle = await startSmtpListener(servicesWith(ctx, { SMTP_IDLE_TIMEOUT_S: "1" }), { port: 0 });
    try {
      const conn = await openSmtp(idle.port);
      await conn.command("EHLO client.test");
      const started = Date.now();
      const closed = await Promise.race([conn.closed.then(() => true), Bun.sleep(5_000).then(() => false)]);
      expect(closed).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      // The server says why before it hangs up.
      expect((await conn.read(500)).code).toBe(421);
    } finally {
      await idle.close();
    }
  });
});

describe("attachments", () => {
  const blob = randomBytes(40_000);
  let messageId: string;
  let attachments: any[];

  beforeAll(async () => {
    const info = await sendMail(smtp.port, {
      from: "files@example.org",
      to: inbox.address,
      subject: "with files",
      text: "see attached",
      attachments: [
        { filename: "notes.txt", content: "hello attachment\n", contentType: "text/plain" },
        { filename: "blob.bin", content: blob, contentType: "application/octet-stream" },
      ],
    });
    expect(info.response).toMatch(/^250 /);
    const [row] = (await messagesOf(inbox.id)).filter((m) => m.subject === "with files");
    messageId = row.id;
    const detail = await ctx.request("GET", `/api/v1/messages/${messageId}`, { key: owner.key });
    attachments = detail.body.attachments;
  });

  const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  const download = async (key: string, message: string, attachment: string) => {
    const response = await ctx.app.handle(
      new Request(`http://localhost/api/v1/messages/${message}/attachments/${attachment}`, {
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
  };

  test("each is described by id, filename, content_type, size and a correct sha256", () => {
    expect(attachments).toHaveLength(2);
    const byName = Object.fromEntries(attachments.map((a) => [a.filename, a]));
    for (const a of attachments) expect(Object.keys(a).sort()).toEqual(["content_type", "filename", "id", "sha256", "size"]);
    expect(byName["blob.bin"]).toMatchObject({ content_type: "application/octet-stream", size: blob.length, sha256: sha256(blob) });
    expect(byName["notes.txt"]).toMatchObject({ content_type: "text/plain", size: 17, sha256: sha256(Buffer.from("hello attachment\n")) });
    expect(byName["blob.bin"].id).toMatch(/^att_/);
  });

  test("downloads byte for byte as an attachment", async () => {
    const a = attachments.find((x) => x.filename === "blob.bin");
    const got = await download(owner.key, messageId, a.id);
    expect(got.status).toBe(200);
    expect(sha256(got.bytes)).toBe(sha256(blob));
    expect(got.headers.get("content-type")).toBe("application/octet-stream");
    expect(got.headers.get("content-disposition")).toContain('attachment; filename="blob.bin"');
  });

  test("the message's 404 rules hold: another account, another mailbox's bound key, a missing id: one body", async () => {
    const a = attachments[0];
    const missing = await ctx.request("GET", `/api/v1/messages/msg_doesnotexist/attachments/${a.id}`, { key: owner.key });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: "message not found" });

    const foreign = await ctx.request("GET", `/api/v1/messages/${messageId}/attachments/${a.id}`, { key: stranger.key });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);

    const boundElsewhere = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: other.id });
    const bound = await ctx.request("GET", `/api/v1/messages/${messageId}/attachments/${a.id}`, { key: boundElsewhere });
    expect(bound.status).toBe(404);
    expect(bound.text).toBe(missing.text);
    const boundDetail = await ctx.request("GET", `/api/v1/messages/${messageId}`, { key: boundElsewhere });
    expect(boundDetail.text).toBe(missing.text);

    const foreignDetail = await ctx.request("GET", `/api/v1/messages/${messageId}`, { key: stranger.key });
    const missingDetail = await ctx.request("GET", "/api/v1/messages/msg_doesnotexist", { key: stranger.key });
    expect(foreignDetail.status).toBe(404);
    expect(foreignDetail.text).toBe(missingDetail.text);

    const boundHere = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: inbox.id });
    expect((await download(boundHere, messageId, a.id)).status).toBe(200);
  });

  test("an attachment id that is not this message's is 404 attachment not found", async () => {
    const [plain] = (await messagesOf(inbox.id)).filter((m) => m.subject === "Hello agent");
    const wrong = await ctx.request("GET", `/api/v1/messages/${plain.id}/attachments/${attachments[0].id}`, { key: owner.key });
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual({ error: "not found" });
  });
});

describe("listing", () => {
  let bulk: { id: string; address: string };

  beforeAll(async () => {
    bulk = await makeMailbox(ctx, owner, "bulk");
    // Written directly: the listener's path is proven above, here only the list's order and limits matter.
    await ctx.sql`
      insert into messages (id, account_id, mailbox_id, direction, thread_id, from_addr, to_addr, subject, created_at)
      select 'msg_bulk' || lpad(i::text, 4, '0'), ${owner.accountId}, ${bulk.id}, case when i % 7 = 0 then 'out' else 'in' end,
        'thr_bulk' || i, 'x@example.org', ${bulk.address}, 'bulk ' || i, now() - make_interval(secs => i)
      from generate_series(1, 120) as i`;
  });

  const list = (query: string, key = owner.key) => ctx.request("GET", `/api/v1/messages?${query}`, { key });

  test("newest first, 50 by default", async () => {
    const response = await list(`mailbox_id=${bulk.id}`);
    expect(response.status).toBe(200);
    expect(response.body.messages.map((m: any) => m.subject)).toEqual(Array.from({ length: 50 }, (_, i) => `bulk ${i + 1}`));
    expect(response.body.messages.some((m: any) => m.direction === "out")).toBe(true);
  });

  test("limit is honored and clamped to 100", async () => {
    expect((await list(`mailbox_id=${bulk.id}&limit=3`)).body.messages.map((m: any) => m.subject)).toEqual(["bulk 1", "bulk 2", "bulk 3"]);
    expect((await list(`mailbox_id=${bulk.id}&limit=100`)).body.messages).toHaveLength(100);
    expect((await list(`mailbox_id=${bulk.id}&limit=101`)).body.messages).toHaveLength(100);
    expect((await list(`mailbox_id=${bulk.id}&limit=100000`)).body.messages).toHaveLength(100);
  });

  test("a limit below 1 or not a number is 400", async () => {
    expect((await list(`mailbox_id=${bulk.id}&limit=0`)).status).toBe(400);
    expect((await list(`mailbox_id=${bulk.id}&limit=abc`)).status).toBe(400);
  });

  test("missing mailbox_id is 400", async () => {
    const response = await list("");
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe("string");
  });

  test("a bound key listing another mailbox is 403 key_scope; its own mailbox is listed", async () => {
    const bound = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: inbox.id });
    const refused = await list(`mailbox_id=${bulk.id}`, bound);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "this api key is scoped to a different mailbox", code: "key_scope" });
    expect((await list(`mailbox_id=${inbox.id}`, bound)).status).toBe(200);
  });

  test("another account's mailbox lists nothing of it", async () => {
    const response = await list(`mailbox_id=${bulk.id}`, stranger.key);
    expect(response.status).toBe(200);
    expect(response.body.messages).toEqual([]);
  });

  test("a key with can_read=false is 403 key_scope on list, detail and download", async () => {
    const blind = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false });
    const expected = { error: "this api key cannot read messages", code: "key_scope" };
    const listed = await list(`mailbox_id=${bulk.id}`, blind);
    expect(listed.status).toBe(403);
    expect(listed.body).toEqual(expected);
    const detail = await ctx.request("GET", "/api/v1/messages/msg_bulk0001", { key: blind });
    expect(detail.status).toBe(403);
    expect(detail.body).toEqual(expected);
    const download = await ctx.request("GET", "/api/v1/messages/msg_bulk0001/attachments/att_x", { key: blind });
    expect(download.status).toBe(403);
    expect(download.body).toEqual(expected);
  });
});
