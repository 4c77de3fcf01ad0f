// GET /api/v1/threads, /threads/{id} and /threads/{id}/labels under hostile callers, beyond what
// threads.test.ts and labels.test.ts already check: keys bound to one mailbox on every thread route,
// keys without can_read, bootstrap and unknown keys, and the stranger's view of the owner's threads.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeKey } from "../support/context.ts";
import { type ApiCall, expectEveryCall, expectSameAsMissing } from "../support/every-call.ts";
import { type MessagesWorld, makeMessagesWorld } from "../support/messages.ts";

let w: MessagesWorld;
let inboxThread: string;
let otherThread: string;
let foreignThread: string;
let boundKey: string; // the owner's key, bound to w.other
let noReadKey: string;

const NOT_FOUND = '{"error":"thread not found"}';
const CANNOT_READ = { error: "this api key cannot read messages", code: "key_scope" };
const DIFFERENT_MAILBOX = { error: "this api key is scoped to a different mailbox", code: "key_scope" };

const req = (key: string | null, method: string, path: string, body?: unknown) => w.ctx.request(method, `/api/v1${path}`, { key, body });
const threadOf = async (messageId: string, key: string) => (await w.get(key, messageId)).body.thread_id as string;

/** Every route that takes a thread id. */
const byIdCalls = (id: string): ApiCall[] => [
  ["GET", `/threads/${id}`],
  ["GET", `/threads/${id}/labels`],
  ["POST", `/threads/${id}/labels`, { add: ["hijacked"] }],
];

beforeAll(async () => {
  w = await makeMessagesWorld();
  inboxThread = await threadOf(await w.receive(w.inbox, { subject: "Inbox conversation" }), w.owner.key);
  otherThread = await threadOf(await w.receive(w.other, { subject: "Other conversation" }), w.owner.key);
  foreignThread = await threadOf(await w.receive(w.foreign, { subject: "Stranger conversation", text: "stranger secret" }), w.stranger.key);
  boundKey = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "api", mailboxId: w.other.id });
  noReadKey = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "api", canRead: false });
});

afterAll(async () => {
  await w.ctx.close();
});

const labelsOf = async (key: string, id: string) => (await req(key, "GET", `/threads/${id}/labels`)).body.labels as string[];

describe("another account's threads", () => {
  test("GET /threads/{id} of a foreign thread is the missing id's 404, byte for byte, with the same headers", async () => {
    const missing = await req(w.owner.key, "GET", "/threads/thr_doesnotexist");
    const foreign = await req(w.owner.key, "GET", `/threads/${foreignThread}`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(NOT_FOUND);
    expect(foreign.text).toBe(missing.text);
    expect(foreign.headers.get("content-type")).toBe(missing.headers.get("content-type"));
    expect(foreign.text).not.toContain("stranger secret");
  });

  test("listing the stranger's mailbox answers exactly as an unknown mailbox does", async () => {
    const foreign = await req(w.owner.key, "GET", `/threads?mailbox_id=${w.foreign.id}`);
    const unknown = await req(w.owner.key, "GET", "/threads?mailbox_id=mbx_doesnotexist");
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.text).toBe(unknown.text);
    expect(foreign.text).not.toContain(foreignThread);
  });

  test("the stranger still reads their own thread", async () => {
    const own = await req(w.stranger.key, "GET", `/threads/${foreignThread}`);
    expect(own.status).toBe(200);
    expect(own.text).toContain("Stranger conversation");
  });
});

describe("a key bound to one mailbox", () => {
  test("reads its own mailbox's thread, its labels, and lists its mailbox", async () => {
    expect((await req(boundKey, "GET", `/threads/${otherThread}`)).status).toBe(200);
    expect((await req(boundKey, "GET", `/threads/${otherThread}/labels`)).status).toBe(200);
    const listed = await req(boundKey, "GET", `/threads?mailbox_id=${w.other.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.threads.map((t: { id: string }) => t.id)).toEqual([otherThread]);
  });

  test("a thread of another mailbox of its account is the missing id's 404 on every by-id route; labels unchanged", async () => {
    const before = await labelsOf(w.owner.key, inboxThread);
    await expectSameAsMissing(req, boundKey, byIdCalls(inboxThread), byIdCalls("thr_doesnotexist"), NOT_FOUND);
    expect(await labelsOf(w.owner.key, inboxThread)).toEqual(before);
    expect(before).not.toContain("hijacked");
  });

  test("a foreign account's thread is the same 404", async () => {
    const response = await req(boundKey, "GET", `/threads/${foreignThread}`);
    expect(response.status).toBe(404);
    expect(response.text).toBe(NOT_FOUND);
  });

  test("listing another mailbox of its account, a foreign one or an unknown one is the same 403", async () => {
    for (const mailboxId of [w.inbox.id, w.foreign.id, "mbx_doesnotexist"]) {
      const response = await req(boundKey, "GET", `/threads?mailbox_id=${mailboxId}`);
      expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: DIFFERENT_MAILBOX });
    }
  });
});

describe("keys that may not read", () => {
  test("can_read false: the list and every by-id route are 403 key_scope, and labels are unchanged", async () => {
    const before = await labelsOf(w.owner.key, inboxThread);
    const calls: ApiCall[] = [["GET", `/threads?mailbox_id=${w.inbox.id}`], ...byIdCalls(inboxThread)];
    await expectEveryCall(req, noReadKey, calls, { status: 403, body: CANNOT_READ });
    expect(await labelsOf(w.owner.key, inboxThread)).toEqual(before);
  });

  test("a bootstrap key is refused on the list and every by-id route", async () => {
    const key = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "bootstrap" });
    const calls: ApiCall[] = [["GET", `/threads?mailbox_id=${w.inbox.id}`], ...byIdCalls(inboxThread)];
    await expectEveryCall(req, key, calls, { status: 403, body: { error: "scope 'bootstrap' not permitted for this endpoint" } });
  });

  test("no key is 401 missing bearer token and an unknown key 401 invalid api key on every thread route", async () => {
    const calls: ApiCall[] = [["GET", `/threads?mailbox_id=${w.inbox.id}`], ...byIdCalls(inboxThread)];
    await expectEveryCall(req, null, calls, { status: 401, body: { error: "missing bearer token" } });
    await expectEveryCall(req, "svc_notarealkeyatall", calls, { status: 401, body: { error: "invalid api key" } });
    expect(await labelsOf(w.owner.key, inboxThread)).not.toContain("hijacked");
  });
});
