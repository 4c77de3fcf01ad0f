// The drafts routes under hostile callers: another account's draft ids, keys bound to another
// mailbox, keys without can_read or can_send, bootstrap keys and no key at all. A draft the caller
// may not see must answer exactly as a missing id does, and a refused call must change nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type ApiCall, expectEveryCall, expectSameAsMissing } from "../support/every-call.ts";

let ctx: TestContext;
let owner: Fixture;
let stranger: Fixture;
let inbox: { id: string; address: string };
let other: { id: string; address: string };
let foreign: { id: string; address: string };
let ownDraft: string; // owner's draft in inbox
let otherDraft: string; // owner's draft in other
let foreignDraft: string; // stranger's draft
let boundKey: string; // owner's key bound to other
let noReadKey: string;
let noSendKey: string;

const NOT_FOUND = '{"error":"draft not found"}';
const CANNOT_SEND = { error: "this api key cannot send", code: "key_scope" };
const CANNOT_READ = { error: "this api key cannot read messages", code: "key_scope" };
const DIFFERENT_MAILBOX = { error: "this api key is scoped to a different mailbox", code: "key_scope" };

const req = (key: string | null, method: string, path: string, body?: unknown) => ctx.request(method, `/api/v1${path}`, { key, body });

async function createDraft(key: string, mailboxId: string, subject: string): Promise<string> {
  const response = await req(key, "POST", "/drafts", { mailbox_id: mailboxId, to: "alice@example.org", subject, text: "Body" });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** The stored draft as its owner reads it, to prove a refused call changed nothing. */
const stored = async (id: string) => (await req(owner.key, "GET", `/drafts/${id}`)).body;
const storedAs = async (key: string, id: string) => (await req(key, "GET", `/drafts/${id}`)).body;

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
  stranger = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "inbox");
  other = await makeMailbox(ctx, owner, "other");
  foreign = await makeMailbox(ctx, stranger, "foreign");
  ownDraft = await createDraft(owner.key, inbox.id, "Owner draft");
  otherDraft = await createDraft(owner.key, other.id, "Other mailbox draft");
  foreignDraft = await createDraft(stranger.key, foreign.id, "Stranger draft");
  boundKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: other.id });
  noReadKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false });
  noSendKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canSend: false });
});

afterAll(async () => {
  await ctx.close();
});

/** Every route that takes a draft id, with a harmless body where one is needed. */
const byIdCalls = (id: string): ApiCall[] => [
  ["GET", `/drafts/${id}`],
  ["PATCH", `/drafts/${id}`, { subject: "Hijacked" }],
  ["POST", `/drafts/${id}/send`],
  ["DELETE", `/drafts/${id}`],
];

describe("another account's drafts", () => {
  test("every by-id route answers the missing id's 404, byte for byte, and the draft is untouched", async () => {
    const before = await storedAs(stranger.key, foreignDraft);
    await expectSameAsMissing(req, owner.key, byIdCalls(foreignDraft), byIdCalls("drf_doesnotexist"), NOT_FOUND);
    expect(await storedAs(stranger.key, foreignDraft)).toEqual(before);
  });

  test("listing the stranger's mailbox shows none of its drafts", async () => {
    const response = await req(owner.key, "GET", `/drafts?mailbox_id=${foreign.id}`);
    const unknown = await req(owner.key, "GET", "/drafts?mailbox_id=mbx_doesnotexist");
    expect(response.status).toBe(unknown.status);
    expect(response.text).toBe(unknown.text);
    expect(response.text).not.toContain(foreignDraft);
  });

  test("creating a draft in the stranger's mailbox is the 404 of an unknown mailbox, and creates nothing", async () => {
    const unknown = await req(owner.key, "POST", "/drafts", { mailbox_id: "mbx_doesnotexist", to: "a@example.org", text: "x" });
    const response = await req(owner.key, "POST", "/drafts", { mailbox_id: foreign.id, to: "a@example.org", text: "x" });
    expect(response.status).toBe(404);
    expect(response.text).toBe(unknown.text);
    const listed = await req(stranger.key, "GET", `/drafts?mailbox_id=${foreign.id}`);
    expect(listed.body.drafts.map((d: { id: string }) => d.id)).toEqual([foreignDraft]);
  });

  test("the stranger still reads their own draft (the 404s are about ownership)", async () => {
    const response = await req(stranger.key, "GET", `/drafts/${foreignDraft}`);
    expect(response.status).toBe(200);
    expect(response.body.subject).toBe("Stranger draft");
  });
});

describe("a key bound to one mailbox", () => {
  test("reads, lists and edits drafts of its own mailbox", async () => {
    expect((await req(boundKey, "GET", `/drafts/${otherDraft}`)).status).toBe(200);
    const listed = await req(boundKey, "GET", `/drafts?mailbox_id=${other.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.drafts.map((d: { id: string }) => d.id)).toEqual([otherDraft]);
    const edited = await req(boundKey, "PATCH", `/drafts/${otherDraft}`, { text: "Edited by the bound key" });
    expect(edited.status).toBe(200);
    expect(edited.body.text).toBe("Edited by the bound key");
  });

  test("a draft of another mailbox of its account is the 404 of a missing id on every by-id route", async () => {
    const before = await stored(ownDraft);
    const missing = await req(boundKey, "GET", "/drafts/drf_doesnotexist");
    for (const [method, path, body] of byIdCalls(ownDraft)) {
      const response = await req(boundKey, method, path, body);
      expect({ call: `${method} ${path}`, status: response.status, text: response.text }).toEqual({
        call: `${method} ${path}`,
        status: 404,
        text: missing.text,
      });
    }
    expect(await stored(ownDraft)).toEqual(before);
  });

  test("creating or listing in another mailbox is 403 key_scope", async () => {
    const created = await req(boundKey, "POST", "/drafts", { mailbox_id: inbox.id, to: "a@example.org", text: "x" });
    expect({ status: created.status, body: created.body }).toEqual({ status: 403, body: DIFFERENT_MAILBOX });
    const listed = await req(boundKey, "GET", `/drafts?mailbox_id=${inbox.id}`);
    expect({ status: listed.status, body: listed.body }).toEqual({ status: 403, body: DIFFERENT_MAILBOX });
  });
});

describe("keys without the needed capability", () => {
  test("can_send false: create, edit, send and delete are 403 key_scope and change nothing", async () => {
    const before = await stored(ownDraft);
    const created = await req(noSendKey, "POST", "/drafts", { mailbox_id: inbox.id, to: "a@example.org", text: "x" });
    expect({ status: created.status, body: created.body }).toEqual({ status: 403, body: CANNOT_SEND });
    const changes = byIdCalls(ownDraft).filter(([method]) => method !== "GET");
    await expectEveryCall(req, noSendKey, changes, { status: 403, body: CANNOT_SEND });
    expect(await stored(ownDraft)).toEqual(before);
  });

  test("can_send false may still read drafts", async () => {
    expect((await req(noSendKey, "GET", `/drafts/${ownDraft}`)).status).toBe(200);
    expect((await req(noSendKey, "GET", `/drafts?mailbox_id=${inbox.id}`)).status).toBe(200);
  });

  test("can_read false: get and list are 403 key_scope", async () => {
    for (const response of [
      await req(noReadKey, "GET", `/drafts/${ownDraft}`),
      await req(noReadKey, "GET", `/drafts?mailbox_id=${inbox.id}`),
    ]) {
      expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: CANNOT_READ });
    }
  });

  test("a bootstrap key is refused on every drafts route", async () => {
    const key = await makeKey(ctx, { accountId: owner.accountId, scope: "bootstrap" });
    const calls: ApiCall[] = [
      ["POST", "/drafts", { mailbox_id: inbox.id, to: "a@example.org", text: "x" }],
      ["GET", `/drafts?mailbox_id=${inbox.id}`],
      ...byIdCalls(ownDraft),
    ];
    await expectEveryCall(req, key, calls, { status: 403, body: { error: "scope 'bootstrap' not permitted for this endpoint" } });
    expect((await req(owner.key, "GET", `/drafts/${ownDraft}`)).status).toBe(200);
  });
});

describe("no key or a wrong key", () => {
  test("no Authorization header is 401 missing bearer token on every drafts route", async () => {
    const calls: ApiCall[] = [
      ["POST", "/drafts", { mailbox_id: inbox.id, to: "a@example.org", text: "x" }],
      ["GET", `/drafts?mailbox_id=${inbox.id}`],
      ...byIdCalls(ownDraft),
    ];
    await expectEveryCall(req, null, calls, { status: 401, body: { error: "missing bearer token" } });
  });

  test("an unknown key is 401 invalid api key, and the draft survives", async () => {
    await expectEveryCall(req, "svc_notarealkeyatall", byIdCalls(ownDraft), { status: 401, body: { error: "invalid api key" } });
    expect((await req(owner.key, "GET", `/drafts/${ownDraft}`)).status).toBe(200);
  });
});
