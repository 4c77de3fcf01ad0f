// GET /api/v1/events and GET /api/v1/events/stream given bad input: the exact status and error
// string for bad cursors, unknown event types and bad limits, the same on the poll and on the stream
// (they share one scope and cursor parser). events.test.ts checks the statuses of bad `after`
// values on the poll; this file pins the bodies and covers `types` and the stream.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";

let ctx: TestContext;
let account: Fixture;
let stranger: Fixture;
let mailbox: { id: string };
let ownCursor: string;
let strangerCursor: string;

const BAD_CURSOR = { error: "cursor must be a cursor returned by this API" };
const ROUTES = ["/api/v1/events", "/api/v1/events/stream"];

const get = (path: string, key: string = account.key, headers: Record<string, string> = {}) => ctx.request("GET", path, { key, headers });
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

beforeAll(async () => {
  ctx = await makeTestContext();
  account = await makeAccount(ctx);
  stranger = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, account, "events");
  ownCursor = (await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: "one" })).cursor;
  const strangerMailbox = await makeMailbox(ctx, stranger, "elsewhere");
  strangerCursor = (await appendTestEvent(ctx.sql, stranger.accountId, strangerMailbox.id)).cursor;
});

afterAll(async () => {
  await ctx.close();
});

describe("cursors", () => {
  test("a malformed `after` is 400 with the same body on the poll and the stream", async () => {
    for (const route of ROUTES) {
      for (const bad of ["abc", "-1", "1e3", "99999999999999999999", "not a cursor at all!"]) {
        const response = await get(`${route}?after=${encodeURIComponent(bad)}`);
        expect({ route, bad, ...answer(response) }).toEqual({ route, bad, status: 400, body: BAD_CURSOR });
      }
    }
  });

  test("an `after` longer than a cursor is refused by its length before it is parsed", async () => {
    for (const route of ROUTES) {
      const response = await get(`${route}?after=${"x".repeat(200)}`);
      expect({ route, ...answer(response) }).toEqual({ route, status: 400, body: { error: "after must be at most 32 characters" } });
    }
  });

  test("another account's cursor is refused exactly like a malformed one", async () => {
    for (const route of ROUTES) {
      const foreign = await get(`${route}?after=${strangerCursor}`);
      const malformed = await get(`${route}?after=abc`);
      expect(foreign.status).toBe(400);
      expect(foreign.text).toBe(malformed.text);
    }
  });

  test("a bad Last-Event-ID on the stream is the same 400", async () => {
    const response = await get("/api/v1/events/stream", account.key, { "last-event-id": "garbage!" });
    expect(answer(response)).toEqual({ status: 400, body: BAD_CURSOR });
  });

  test("the account's own cursor is accepted (the refusals are about the cursor, not the route)", async () => {
    const response = await get(`/api/v1/events?after=${ownCursor}`);
    expect(answer(response)).toEqual({ status: 200, body: { events: [], next_cursor: ownCursor } });
  });
});

describe("event types", () => {
  test("an unknown type is 400 naming it and the known types, on the poll and the stream", async () => {
    for (const route of ROUTES) {
      const response = await get(`${route}?types=message.received,message.exploded`);
      expect(response.status).toBe(400);
      expect(response.body.error).toStartWith("types: unknown event type 'message.exploded' (known: message.received, ");
      expect(response.body.error).toContain("message.sent");
      expect(Object.keys(response.body)).toEqual(["error"]);
    }
  });

  test("a very long unknown type is cut to 64 characters in the error", async () => {
    const long = `x${"y".repeat(300)}`;
    const response = await get(`/api/v1/events?types=${long}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(`'${long.slice(0, 64)}'`);
    expect(response.body.error).not.toContain(long.slice(0, 65));
  });

  test("case matters: MESSAGE.RECEIVED is not a type", async () => {
    expect((await get("/api/v1/events?types=MESSAGE.RECEIVED")).status).toBe(400);
  });
});

describe("limit and mailbox_id", () => {
  test("limit below 1 or not an integer is 400", async () => {
    for (const bad of ["0", "-5", "abc", "1.5"]) {
      const response = await get(`/api/v1/events?limit=${bad}`);
      expect({ bad, status: response.status }).toEqual({ bad, status: 400 });
      expect(typeof response.body.error).toBe("string");
    }
  });

  test("an unknown mailbox_id yields nothing rather than an error, as another account's does", async () => {
    const unknown = await get("/api/v1/events?after=0&mailbox_id=mbx_doesnotexist");
    expect(unknown.status).toBe(200);
    expect(unknown.body.events).toEqual([]);
  });
});
