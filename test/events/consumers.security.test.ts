// The consumers routes under hostile callers, beyond consumers.test.ts: another account's consumer
// answers as a missing one, byte for byte, on every route; names are per account; a bound key
// cannot reach an account-wide or another mailbox's consumer on any route; keys without can_read,
// bootstrap keys and no key are refused; a refused call moves no lease and no acknowledgement.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";
import { type ApiCall, expectEveryCall, expectSameAsMissing } from "../support/every-call.ts";

let ctx: TestContext;
let owner: Fixture;
let stranger: Fixture;
let inbox: { id: string };
let other: { id: string };
let boundKey: string; // the owner's key, bound to other
let noReadKey: string;
let ownerCursor: string;
let strangerCursor: string; // cursors are per account: the stranger acks with one of theirs

const NOT_FOUND = '{"error":"not found"}';
const CANNOT_READ = { error: "this api key cannot read messages", code: "key_scope" };

const req = (key: string | null, method: string, path: string, body?: unknown) => ctx.request(method, `/api/v1${path}`, { key, body });

/** Every route that names a consumer. */
const byNameCalls = (name: string, cursor: string): ApiCall[] => [
  ["GET", `/consumers/${name}`],
  ["POST", `/consumers/${name}/claim`, {}],
  ["POST", `/consumers/${name}/ack`, { cursors: [cursor] }],
];

/** A consumer's state as its owner sees it: what it acknowledged and which events are still free. */
async function state(name: string) {
  const consumer = (await req(owner.key, "GET", `/consumers/${name}`)).body;
  return { acked_through: consumer.acked_through, mailbox_id: consumer.mailbox_id };
}

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
  stranger = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "inbox");
  other = await makeMailbox(ctx, owner, "other");
  ownerCursor = (await appendTestEvent(ctx.sql, owner.accountId, inbox.id, { subject: "owner event" })).cursor;
  await appendTestEvent(ctx.sql, owner.accountId, other.id, { subject: "other event" });
  const strangerMailbox = await makeMailbox(ctx, stranger, "stranger");
  strangerCursor = (await appendTestEvent(ctx.sql, stranger.accountId, strangerMailbox.id, { subject: "stranger event" })).cursor;
  boundKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: other.id });
  noReadKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false });
  expect((await req(owner.key, "POST", "/consumers", { name: "everything" })).status).toBe(201);
  expect((await req(owner.key, "POST", "/consumers", { name: "inbox-only", mailbox_id: inbox.id })).status).toBe(201);
  expect((await req(boundKey, "POST", "/consumers", { name: "other-only" })).status).toBe(201);
});

afterAll(async () => {
  await ctx.close();
});

describe("another account's consumer", () => {
  test("every route answers the missing consumer's 404, byte for byte, and the consumer is untouched", async () => {
    const before = await state("everything");
    await expectSameAsMissing(
      req,
      stranger.key,
      byNameCalls("everything", strangerCursor),
      byNameCalls("nobody-at-all", strangerCursor),
      NOT_FOUND,
    );
    expect(await state("everything")).toEqual(before);
    // The stranger's claim took no lease: the owner's first claim still gets the owner's event.
    const claimed = await req(owner.key, "POST", "/consumers/everything/claim", { limit: 10 });
    expect(claimed.body.events.map((e: { cursor: string }) => e.cursor)).toContain(ownerCursor);
  });

  test("names are per account: the stranger's consumer of the same name is their own and sees none of the owner's events", async () => {
    const created = await req(stranger.key, "POST", "/consumers", { name: "inbox-only" });
    expect(created.status).toBe(201);
    expect(created.body.mailbox_id).toBeNull();
    const claimed = await req(stranger.key, "POST", "/consumers/inbox-only/claim", { limit: 100 });
    expect(claimed.status).toBe(200);
    expect(claimed.text).not.toContain("owner event");
    expect(claimed.text).not.toContain("other event");
    expect((await state("inbox-only")).mailbox_id).toBe(inbox.id);
  });

  test("creating a consumer on the owner's mailbox is the unknown mailbox's 404", async () => {
    const unknown = await req(stranger.key, "POST", "/consumers", { name: "spy", mailbox_id: "mbx_doesnotexist" });
    const foreign = await req(stranger.key, "POST", "/consumers", { name: "spy", mailbox_id: inbox.id });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(unknown.text);
  });
});

describe("a key bound to one mailbox", () => {
  test("uses its own mailbox's consumer and sees that mailbox's events only", async () => {
    const claimed = await req(boundKey, "POST", "/consumers/other-only/claim", { limit: 100 });
    expect(claimed.status).toBe(200);
    expect(claimed.body.events.map((e: { event: { subject: string } }) => e.event.subject)).toEqual(["other event"]);
  });

  test("an account-wide consumer and another mailbox's consumer are the missing consumer's 404 on every route", async () => {
    const before = { everything: await state("everything"), inbox: await state("inbox-only") };
    for (const name of ["everything", "inbox-only"]) {
      await expectSameAsMissing(req, boundKey, byNameCalls(name, ownerCursor), byNameCalls("nobody-at-all", ownerCursor), NOT_FOUND);
    }
    expect({ everything: await state("everything"), inbox: await state("inbox-only") }).toEqual(before);
  });

  test("opening an existing account-wide name from a bound key does not hand it over: the missing consumer's 404", async () => {
    const response = await req(boundKey, "POST", "/consumers", { name: "everything" });
    expect({ status: response.status, text: response.text }).toEqual({ status: 404, text: NOT_FOUND });
    expect((await state("everything")).mailbox_id).toBeNull();
  });
});

describe("keys that may not read, and no key", () => {
  test("can_read false is 403 key_scope on create and every by-name route", async () => {
    const calls: ApiCall[] = [["POST", "/consumers", { name: "blind" }], ...byNameCalls("everything", ownerCursor)];
    await expectEveryCall(req, noReadKey, calls, { status: 403, body: CANNOT_READ });
    expect((await req(owner.key, "GET", "/consumers/blind")).status).toBe(404);
  });

  test("a bootstrap key is refused on every consumers route", async () => {
    const key = await makeKey(ctx, { accountId: owner.accountId, scope: "bootstrap" });
    const calls: ApiCall[] = [["POST", "/consumers", { name: "boot" }], ...byNameCalls("everything", ownerCursor)];
    await expectEveryCall(req, key, calls, { status: 403, body: { error: "scope 'bootstrap' not permitted for this endpoint" } });
  });

  test("no key is 401 missing bearer token and an unknown key 401 invalid api key on every consumers route", async () => {
    const calls: ApiCall[] = [["POST", "/consumers", { name: "anon" }], ...byNameCalls("everything", ownerCursor)];
    await expectEveryCall(req, null, calls, { status: 401, body: { error: "missing bearer token" } });
    await expectEveryCall(req, "svc_notarealkeyatall", calls, { status: 401, body: { error: "invalid api key" } });
  });
});
