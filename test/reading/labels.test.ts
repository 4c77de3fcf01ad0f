// Labels on messages and threads: read/unread/archived and names of the agent's, filters on the
// message and thread listings and in search, batch changes, limits, and the security rules.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mime, receive } from "../support/mail-fixtures.ts";

setDefaultTimeout(30_000);

let ctx: TestContext;
let owner: Fixture;
let mailbox: { id: string; address: string };

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  owner = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, owner, "labels");
});

afterAll(async () => {
  await ctx.close();
});

const req = (method: string, path: string, body?: unknown, key = owner.key) => ctx.request(method, `/api/v1${path}`, { key, body });
const inbound = (subject: string, extra: { inReplyTo?: string; messageId?: string } = {}) =>
  receive(ctx, mailbox.id, mime({ from: "carol@example.org", to: mailbox.address, subject, text: `About ${subject}`, ...extra }));
const listed = async (query: string) =>
  ((await req("GET", `/messages?mailbox_id=${mailbox.id}&${query}`)).body.messages as { id: string }[]).map((m) => m.id);

describe("messages", () => {
  test("inbound mail is unread until marked read; labels are added, removed, listed and filtered", async () => {
    const id = await inbound("Quarterly numbers");
    expect(await req("GET", `/messages/${id}/labels`)).toMatchObject({ status: 200, body: { labels: ["unread"] } });
    const changed = await req("POST", `/messages/${id}/labels`, { add: ["read", "Finance/Q3"] });
    expect(changed).toMatchObject({ status: 200, body: { labels: ["finance/q3", "read"] } });
    expect(await listed("label=finance/q3")).toEqual([id]);
    expect(await listed("label=read")).toContain(id);
    expect(await listed("label=unread")).not.toContain(id);
    // Adding unread takes read away.
    expect((await req("POST", `/messages/${id}/labels`, { add: ["unread"], remove: ["finance/q3"] })).body.labels).toEqual(["unread"]);
    expect(await listed("label=unread")).toContain(id);
    expect(await listed("label=finance/q3")).toEqual([]);
  });

  test("without label the listing is the contract's, item fields unchanged", async () => {
    const id = await inbound("Plain");
    await req("POST", `/messages/${id}/labels`, { add: ["archived"] });
    const all = (await req("GET", `/messages?mailbox_id=${mailbox.id}`)).body.messages;
    expect(all.map((m: { id: string }) => m.id)).toContain(id);
    for (const item of all)
      expect(Object.keys(item).sort()).toEqual(["comprehension", "created_at", "direction", "from_addr", "id", "subject", "to_addr"]);
    expect(await listed("label=archived")).toEqual([id]);
  });

  test("outbound mail is read", async () => {
    const sent = await req("POST", "/send", { mailbox_id: mailbox.id, to: "dave@example.org", text: "Hi Dave" });
    expect((await req("GET", `/messages/${sent.body.id}/labels`)).body.labels).toEqual([]);
    expect(await listed("label=read")).toContain(sent.body.id);
  });

  test("search filters on has_label", async () => {
    const id = await inbound("Contract renewal");
    await req("POST", `/messages/${id}/labels`, { add: ["legal"] });
    const found = await req("GET", `/search?mailbox_id=${mailbox.id}&q=renewal&has_label=legal`);
    expect(found.body.results.map((r: { id: string }) => r.id)).toEqual([id]);
    const none = await req("GET", `/search?mailbox_id=${mailbox.id}&q=renewal&has_label=read`);
    expect(none.body.results).toEqual([]);
  });
});

describe("threads", () => {
  test("a thread is read and archived only while every message is; other labels are any message's", async () => {
    const first = await inbound("Project kickoff", { messageId: "<kickoff@example.org>" });
    const threadId = (await req("GET", `/messages/${first}`)).body.thread_id;
    const changed = await req("POST", `/threads/${threadId}/labels`, { add: ["read", "archived", "project-x"] });
    expect(changed.body.labels).toEqual(["archived", "project-x", "read"]);
    const threads = async (label: string) =>
      ((await req("GET", `/threads?mailbox_id=${mailbox.id}&label=${label}`)).body.threads as { id: string }[]).map((t) => t.id);
    expect(await threads("archived")).toContain(threadId);
    expect(await threads("unread")).not.toContain(threadId);

    // A reply arrives: the thread is unread and back from the archive, still project-x.
    const reply = await inbound("Re: Project kickoff", { inReplyTo: "<kickoff@example.org>" });
    expect((await req("GET", `/messages/${reply}`)).body.thread_id).toBe(threadId);
    expect((await req("GET", `/threads/${threadId}/labels`)).body.labels).toEqual(["project-x", "unread"]);
    expect(await threads("unread")).toContain(threadId);
    expect(await threads("archived")).not.toContain(threadId);
    expect(await threads("project-x")).toContain(threadId);
  });
});

describe("batch", () => {
  test("one change over many messages; unknown and foreign ids are reported alike", async () => {
    const ids = [await inbound("One"), await inbound("Two")];
    const stranger = await makeAccount(ctx);
    const theirs = await makeMailbox(ctx, stranger, "strangers");
    const foreign = await receive(ctx, theirs.id, mime({ from: "x@example.org", to: theirs.address, subject: "x", text: "x" }));
    const result = await req("POST", "/labels/batch", { message_ids: [...ids, foreign, "msg_unknown"], add: ["read", "done"] });
    expect(result).toMatchObject({ status: 200, body: { updated: ids, not_found: [foreign, "msg_unknown"] } });
    for (const id of ids) expect((await req("GET", `/messages/${id}/labels`)).body.labels).toEqual(["done", "read"]);
    expect((await req("GET", `/messages/${foreign}/labels`, undefined, stranger.key)).body.labels).toEqual(["unread"]);
    const tooMany = await req("POST", "/labels/batch", { message_ids: Array.from({ length: 101 }, (_, i) => `msg_${i}`), add: ["x"] });
    expect(tooMany.status).toBe(400);
  });
});

describe("errors", () => {
  test("bad names, empty changes, contradictions and the per-message cap", async () => {
    const id = await inbound("Errors");
    expect((await req("POST", `/messages/${id}/labels`, { add: ["has space"] })).status).toBe(400);
    expect((await req("POST", `/messages/${id}/labels`, { add: ["-dash"] })).status).toBe(400);
    expect((await req("POST", `/messages/${id}/labels`, { add: ["x".repeat(65)] })).status).toBe(400);
    expect(await req("POST", `/messages/${id}/labels`, {})).toMatchObject({
      status: 400,
      body: { error: "add or remove at least one label" },
    });
    expect((await req("POST", `/messages/${id}/labels`, { add: ["a"], remove: ["A"] })).status).toBe(400);
    expect((await req("POST", `/messages/${id}/labels`, { add: ["a"], color: "red" })).status).toBe(400);
    expect((await req("GET", `/messages?mailbox_id=${mailbox.id}&label=${encodeURIComponent("no way")}`)).status).toBe(400);
    for (let i = 0; i < 2; i++) {
      const add = Array.from({ length: 20 }, (_, j) => `l${i}-${j}`);
      expect((await req("POST", `/messages/${id}/labels`, { add })).status).toBe(200);
    }
    const over = await req("POST", `/messages/${id}/labels`, { add: Array.from({ length: 11 }, (_, j) => `over-${j}`) });
    expect(over).toMatchObject({ status: 400, body: { error: "a message may carry at most 50 labels" } });
    expect((await req("GET", `/messages/${id}/labels`)).body.labels).toHaveLength(41);
  });
});

describe("security", () => {
  test("foreign and bound-elsewhere ids are the one 404; can_read governs; can_send is not needed", async () => {
    const id = await inbound("Private");
    const threadId = (await req("GET", `/messages/${id}`)).body.thread_id;
    const stranger = await makeAccount(ctx);
    const missing = await req("GET", `/messages/msg_unknown/labels`);
    for (const [method, path, body] of [
      ["GET", `/messages/${id}/labels`, undefined],
      ["POST", `/messages/${id}/labels`, { add: ["x"] }],
    ] as const) {
      const answer = await req(method, path, body, stranger.key);
      expect(answer.status).toBe(404);
      expect(answer.text).toBe(missing.text);
    }
    const missingThread = await req("GET", `/threads/thr_unknown/labels`);
    expect((await req("GET", `/threads/${threadId}/labels`, undefined, stranger.key)).text).toBe(missingThread.text);
    expect((await req("POST", `/threads/${threadId}/labels`, { add: ["x"] }, stranger.key)).text).toBe(missingThread.text);

    const other = await makeMailbox(ctx, owner, "labels-other");
    const bound = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: other.id });
    expect((await req("POST", `/messages/${id}/labels`, { add: ["x"] }, bound)).text).toBe(missing.text);
    expect((await req("POST", "/labels/batch", { message_ids: [id], add: ["x"] }, bound)).body).toEqual({ updated: [], not_found: [id] });
    expect((await req("GET", `/messages?mailbox_id=${mailbox.id}&label=read`, undefined, bound)).status).toBe(403);

    const noRead = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false });
    expect((await req("POST", `/messages/${id}/labels`, { add: ["x"] }, noRead)).body).toEqual({
      error: "this api key cannot read messages",
      code: "key_scope",
    });
    const readOnly = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canSend: false });
    expect((await req("POST", `/messages/${id}/labels`, { add: ["read"] }, readOnly)).body.labels).toEqual(["read"]);
    expect((await req("GET", `/messages/${id}/labels`, undefined, "svc_nope")).status).toBe(401);
  });
});
