// GET /api/v1/threads and /api/v1/threads/{id}, and the cursor on GET /api/v1/messages: happy path
// over the real inbound and send paths, errors, and isolation between accounts and bound keys.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;
let stranger: Fixture;
let inbox: Mailbox;
let other: Mailbox;
let foreign: Mailbox;
let boundKey: string;
let noReadKey: string;

async function mailboxRow(id: string): Promise<Mailbox> {
  const [row] = await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${id}`;
  return row!;
}

async function receive(
  mailbox: Mailbox,
  mail: { from?: string; subject: string; text: string; messageId?: string; inReplyTo?: string },
): Promise<string> {
  const lines = [
    `From: ${mail.from ?? "ana@example.org"}`,
    `To: ${mailbox.address}`,
    `Subject: ${mail.subject}`,
    mail.messageId ? `Message-ID: ${mail.messageId}` : null,
    mail.inReplyTo ? `In-Reply-To: ${mail.inReplyTo}` : null,
    "",
    mail.text,
    "",
  ].filter((line) => line !== null);
  const [id] = await acceptInbound(ctx.svc, Buffer.from(lines.join("\r\n")), [mailbox], {
    remoteIp: null,
    helo: null,
    mailFrom: "ana@example.org",
  });
  return id!;
}

let threadId: string;
let replyId: string;

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  owner = await makeAccount(ctx);
  stranger = await makeAccount(ctx);
  inbox = await mailboxRow((await makeMailbox(ctx, owner, "reader")).id);
  other = await mailboxRow((await makeMailbox(ctx, owner, "other")).id);
  foreign = await mailboxRow((await makeMailbox(ctx, stranger, "foreign")).id);
  boundKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: other.id });
  noReadKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false });

  // A conversation: Ana asks, the agent answers through the send API, Ana replies quoting it.
  const first = await receive(inbox, { subject: "Invoice question", text: "Hello, where is my invoice?", messageId: "<t1@example.org>" });
  const sent = await ctx.request("POST", "/api/v1/send", {
    key: owner.key,
    body: { mailbox_id: inbox.id, reply_to_message_id: first, text: "It is attached to your account page." },
  });
  expect(sent.status).toBe(201);
  threadId = sent.body.thread_id;
  const [outbound] = await ctx.sql`select rfc_message_id from messages where id = ${sent.body.id}`;
  replyId = await receive(inbox, {
    subject: "Re: Invoice question",
    inReplyTo: outbound!.rfc_message_id,
    text: "Found it, thanks!\r\n\r\nOn Tue, 3 Mar 2026 at 10:00, Reader <reader@x> wrote:\r\n> It is attached to your account page.",
  });
  // A second, older-activity thread from someone else, and mail in the other mailboxes.
  await receive(inbox, { from: "bob@example.net", subject: "Lunch?", text: "Lunch on Friday?" });
  await ctx.sql`update messages set created_at = now() - interval '1 day' where subject = 'Lunch?'`;
  await receive(other, { subject: "Elsewhere", text: "other mailbox" });
  await receive(foreign, { subject: "Foreign", text: "another account" });
});

afterAll(async () => {
  await ctx.close();
});

describe("threads: happy path", () => {
  test("the list is newest activity first, with subject, participants, count, last time and snippet", async () => {
    const response = await ctx.request("GET", `/api/v1/threads?mailbox_id=${inbox.id}`, { key: owner.key });
    expect(response.status).toBe(200);
    const [conversation, lunch] = response.body.threads;
    expect(response.body.threads).toHaveLength(2);
    expect(conversation).toMatchObject({
      id: threadId,
      mailbox_id: inbox.id,
      subject: "Invoice question",
      participants: ["ana@example.org"],
      message_count: 3,
      last_message_id: replyId,
      snippet: "Found it, thanks!",
    });
    expect(lunch).toMatchObject({ subject: "Lunch?", participants: ["bob@example.net"], message_count: 1, snippet: "Lunch on Friday?" });
    expect(Date.parse(conversation.last_message_at)).toBeGreaterThan(Date.parse(lunch.last_message_at));
    expect(response.body.next_cursor).toBeNull();
  });

  test("one thread has its messages in order, inbound and outbound, with reply_text", async () => {
    const response = await ctx.request("GET", `/api/v1/threads/${threadId}`, { key: owner.key });
    expect(response.status).toBe(200);
    expect(response.body.messages.map((m: any) => m.direction)).toEqual(["in", "out", "in"]);
    expect(response.body.messages[1].body_clean).toBe("It is attached to your account page.");
    expect(response.body.messages[2].reply_text).toBe("Found it, thanks!");
    expect(response.body.messages[2].body_clean).toContain("> It is attached");
    expect(response.body).toMatchObject({ id: threadId, message_count: 3, subject: "Invoice question", has_more: false });
  });

  test("a limit of 1 pages through the threads with next_cursor", async () => {
    const first = await ctx.request("GET", `/api/v1/threads?mailbox_id=${inbox.id}&limit=1`, { key: owner.key });
    expect(first.body.threads.map((t: any) => t.subject)).toEqual(["Invoice question"]);
    const second = await ctx.request("GET", `/api/v1/threads?mailbox_id=${inbox.id}&limit=1&cursor=${first.body.next_cursor}`, {
      key: owner.key,
    });
    expect(second.body.threads.map((t: any) => t.subject)).toEqual(["Lunch?"]);
    const third = await ctx.request("GET", `/api/v1/threads?mailbox_id=${inbox.id}&limit=1&cursor=${second.body.next_cursor}`, {
      key: owner.key,
    });
    expect(third.body).toEqual({ threads: [], next_cursor: null });
  });
});

describe("messages cursor", () => {
  test("x-next-cursor walks the whole mailbox without repeats, the body shape unchanged, stable under new mail", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response: Awaited<ReturnType<TestContext["request"]>> = await ctx.request(
        "GET",
        `/api/v1/messages?mailbox_id=${inbox.id}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { key: owner.key },
      );
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(["messages"]);
      seen.push(...response.body.messages.map((m: any) => m.id));
      cursor = response.headers.get("x-next-cursor");
      // New mail arriving mid-walk lands before the cursor, never in what is left to read.
      if (pages++ === 0) await receive(inbox, { subject: "Late arrival", text: "new" });
    } while (cursor);
    const [{ count }] = await ctx.sql`select count(*)::int from messages where mailbox_id = ${inbox.id} and subject <> 'Late arrival'`;
    expect(seen).toHaveLength(count);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("timestamps equal to the microsecond are ordered by id, none skipped", async () => {
    const ids = [
      await receive(other, { subject: "same 1", text: "a" }),
      await receive(other, { subject: "same 2", text: "b" }),
      await receive(other, { subject: "same 3", text: "c" }),
    ];
    await ctx.sql`update messages set created_at = '2020-01-01T00:00:00.123456Z' where id = any(${ids})`;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response: Awaited<ReturnType<TestContext["request"]>> = await ctx.request(
        "GET",
        `/api/v1/messages?mailbox_id=${other.id}&limit=1${cursor ? `&cursor=${cursor}` : ""}`,
        { key: owner.key },
      );
      seen.push(...response.body.messages.map((m: any) => m.id));
      cursor = response.headers.get("x-next-cursor");
    } while (cursor);
    expect(seen.filter((id) => ids.includes(id))).toEqual([...ids].sort().reverse());
  });

  test("a page shorter than the limit carries no cursor", async () => {
    const response = await ctx.request("GET", `/api/v1/messages?mailbox_id=${inbox.id}&limit=100`, { key: owner.key });
    expect(response.headers.get("x-next-cursor")).toBeNull();
  });
});

describe("the OpenAPI document", () => {
  test("lists the reading endpoints, the cursor parameter and the x-next-cursor header", async () => {
    const doc = (await ctx.request("GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/threads", "/api/v1/threads/{id}", "/api/v1/search"]));
    const list = doc.paths["/api/v1/messages"].get;
    expect(list.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["mailbox_id", "limit", "cursor"]));
    expect(list.responses["200"].headers["x-next-cursor"].schema).toEqual({ type: "string" });
    expect(doc.paths["/api/v1/search"].get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(["q", "from", "after", "before", "has_attachment", "label", "direction", "cursor"]),
    );
  });
});

describe("errors", () => {
  test("a malformed or foreign-kind cursor is 400", async () => {
    const threads = await ctx.request("GET", `/api/v1/threads?mailbox_id=${inbox.id}&limit=1`, { key: owner.key });
    for (const cursor of ["not-a-cursor!", "abc", threads.body.next_cursor]) {
      const response = await ctx.request("GET", `/api/v1/messages?mailbox_id=${inbox.id}&cursor=${encodeURIComponent(cursor)}`, {
        key: owner.key,
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: "cursor is not a valid cursor for this listing" });
    }
  });

  test("mailbox_id missing is 400; no bearer 401; a key that cannot read 403", async () => {
    expect((await ctx.request("GET", "/api/v1/threads", { key: owner.key })).status).toBe(400);
    expect((await ctx.request("GET", `/api/v1/threads?mailbox_id=${inbox.id}`)).body).toEqual({ error: "missing bearer token" });
    const denied = await ctx.request("GET", `/api/v1/threads/${threadId}`, { key: noReadKey });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("key_scope");
  });

  test("an unknown thread is 404 thread not found", async () => {
    const response = await ctx.request("GET", "/api/v1/threads/thr_doesnotexist", { key: owner.key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: "thread not found" });
  });
});

describe("isolation", () => {
  test("another account's thread is the same 404, and its mailbox lists nothing", async () => {
    const missing = await ctx.request("GET", "/api/v1/threads/thr_doesnotexist", { key: owner.key });
    const theirs = await ctx.request("GET", `/api/v1/threads/${threadId}`, { key: stranger.key });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(missing.text);
    const list = await ctx.request("GET", `/api/v1/threads?mailbox_id=${inbox.id}`, { key: stranger.key });
    expect(list.body.threads).toEqual([]);
  });

  test("a key bound to another mailbox gets 404 on the thread and 403 on the list", async () => {
    const missing = await ctx.request("GET", "/api/v1/threads/thr_doesnotexist", { key: boundKey });
    const bound = await ctx.request("GET", `/api/v1/threads/${threadId}`, { key: boundKey });
    expect(bound.status).toBe(404);
    expect(bound.text).toBe(missing.text);
    const list = await ctx.request("GET", `/api/v1/threads?mailbox_id=${inbox.id}`, { key: boundKey });
    expect(list.status).toBe(403);
    expect(list.body.code).toBe("key_scope");
    const own = await ctx.request("GET", `/api/v1/threads?mailbox_id=${other.id}`, { key: boundKey });
    expect(own.status).toBe(200);
    expect(own.body.threads.length).toBeGreaterThan(0);
  });
});
