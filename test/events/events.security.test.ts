// GET /api/v1/events and GET /api/v1/events/stream under hostile callers, beyond events.test.ts and
// events.stream.test.ts: the stream refuses exactly as the poll does (bound keys naming another
// mailbox, keys without can_read, bootstrap keys, unknown keys), a type filter never widens what a
// key sees, and another account's mailbox answers as an unknown one does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";

let ctx: TestContext;
let owner: Fixture;
let stranger: Fixture;
let inbox: { id: string };
let other: { id: string };
let foreign: { id: string };
let boundKey: string; // the owner's key, bound to other
let noReadKey: string;

const ROUTES = ["/api/v1/events", "/api/v1/events/stream"];
const CANNOT_READ = { error: "this api key cannot read messages", code: "key_scope" };
const DIFFERENT_MAILBOX = { error: "this api key is scoped to a different mailbox", code: "key_scope" };

const get = (path: string, key: string | null) => ctx.request("GET", path, { key });
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });
const subjects = (response: { body: { events: { event: { subject: string } }[] } }) =>
  response.body.events.map((item) => item.event.subject);

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
  stranger = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "inbox");
  other = await makeMailbox(ctx, owner, "other");
  foreign = await makeMailbox(ctx, stranger, "foreign");
  await appendTestEvent(ctx.sql, owner.accountId, inbox.id, { subject: "inbox event" });
  await appendTestEvent(ctx.sql, owner.accountId, other.id, { subject: "other event" });
  await appendTestEvent(ctx.sql, stranger.accountId, foreign.id, { subject: "stranger event" });
  boundKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: other.id });
  noReadKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false });
});

afterAll(async () => {
  await ctx.close();
});

describe("another account's events", () => {
  test("naming the stranger's mailbox answers exactly as an unknown mailbox does", async () => {
    const foreignAnswer = await get(`/api/v1/events?after=0&mailbox_id=${foreign.id}`, owner.key);
    const unknown = await get("/api/v1/events?after=0&mailbox_id=mbx_doesnotexist", owner.key);
    expect(foreignAnswer.status).toBe(200);
    expect(foreignAnswer.body.events).toEqual([]);
    expect(foreignAnswer.body.events).toEqual(unknown.body.events);
    expect(foreignAnswer.text).not.toContain("stranger event");
  });

  test("each account polls only its own events, whatever the type filter", async () => {
    for (const types of ["", "&types=message.received"]) {
      expect(subjects(await get(`/api/v1/events?after=0${types}`, owner.key))).toEqual(["inbox event", "other event"]);
      expect(subjects(await get(`/api/v1/events?after=0${types}`, stranger.key))).toEqual(["stranger event"]);
    }
  });
});

describe("a key bound to one mailbox", () => {
  test("polls its own mailbox's events only, with or without naming it or filtering by type", async () => {
    for (const query of ["", `&mailbox_id=${other.id}`, "&types=message.received", `&mailbox_id=${other.id}&types=message.received`]) {
      const response = await get(`/api/v1/events?after=0${query}`, boundKey);
      expect({ query, status: response.status, subjects: subjects(response) }).toEqual({ query, status: 200, subjects: ["other event"] });
    }
  });

  test("naming another mailbox of its account, a foreign one or an unknown one is the same 403 on the poll and the stream", async () => {
    for (const route of ROUTES) {
      for (const mailboxId of [inbox.id, foreign.id, "mbx_doesnotexist"]) {
        const response = await get(`${route}?mailbox_id=${mailboxId}`, boundKey);
        expect({ route, mailboxId, ...answer(response) }).toEqual({ route, mailboxId, status: 403, body: DIFFERENT_MAILBOX });
      }
    }
  });
});

describe("keys that may not read, and no key", () => {
  test("can_read false is 403 key_scope on the poll and the stream", async () => {
    for (const route of ROUTES) {
      expect({ route, ...answer(await get(route, noReadKey)) }).toEqual({ route, status: 403, body: CANNOT_READ });
    }
  });

  test("a bootstrap key is refused on the poll and the stream", async () => {
    const key = await makeKey(ctx, { accountId: owner.accountId, scope: "bootstrap" });
    for (const route of ROUTES) {
      expect({ route, ...answer(await get(route, key)) }).toEqual({
        route,
        status: 403,
        body: { error: "scope 'bootstrap' not permitted for this endpoint" },
      });
    }
  });

  test("no key is 401 missing bearer token and an unknown key 401 invalid api key, on the poll and the stream", async () => {
    for (const route of ROUTES) {
      expect({ route, ...answer(await get(route, null)) }).toEqual({ route, status: 401, body: { error: "missing bearer token" } });
      expect({ route, ...answer(await get(route, "svc_notarealkeyatall")) }).toEqual({
        route,
        status: 401,
        body: { error: "invalid api key" },
      });
    }
  });
});
