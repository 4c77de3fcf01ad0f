// GET /api/v1/search given bad input: each refusal's exact status and error string. search.test.ts
// checks the date strings and the statuses of the other refusals; this file pins their strings and
// covers limits, booleans and unknown parameters, and what is deliberately not an error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;
let mailbox: { id: string };

const EMPTY = { results: [], next_cursor: null };
const search = (params: Record<string, string>) =>
  ctx.request("GET", `/api/v1/search?${new URLSearchParams({ mailbox_id: mailbox.id, ...params })}`, { key: owner.key });
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  owner = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, owner, "search");
});

afterAll(async () => {
  await ctx.close();
});

describe("refused", () => {
  test("mailbox_id missing is 400 mailbox_id is required", async () => {
    expect(answer(await ctx.request("GET", "/api/v1/search?q=x", { key: owner.key }))).toEqual({
      status: 400,
      body: { error: "mailbox_id is required" },
    });
  });

  test("a query over 500 characters is 400 saying the bound; 500 is accepted", async () => {
    expect(answer(await search({ q: "x".repeat(501) }))).toEqual({ status: 400, body: { error: "q must be at most 500 characters" } });
    expect(answer(await search({ q: "x".repeat(500) }))).toEqual({ status: 200, body: EMPTY });
  });

  test("a malformed cursor is 400 cursor is not a valid cursor for this listing", async () => {
    expect(answer(await search({ q: "x", cursor: "bad!" }))).toEqual({
      status: 400,
      body: { error: "cursor is not a valid cursor for this listing" },
    });
  });

  test("has_attachment that is not a boolean is 400 has_attachment must be a boolean", async () => {
    expect(answer(await search({ q: "x", has_attachment: "maybe" }))).toEqual({
      status: 400,
      body: { error: "has_attachment must be a boolean" },
    });
  });

  test("a limit that is not an integer is 400 limit must be an integer >= 1, and so is 0", async () => {
    expect(answer(await search({ q: "x", limit: "abc" }))).toEqual({ status: 400, body: { error: "limit must be an integer >= 1" } });
    expect(answer(await search({ q: "x", limit: "0" }))).toEqual({ status: 400, body: { error: "limit must be an integer >= 1" } });
  });

  test("an unknown direction and an unknown parameter are 400 naming the parameter", async () => {
    const direction = await search({ q: "x", direction: "sideways" });
    expect(direction.status).toBe(400);
    expect(direction.body.error).toStartWith("direction");
    expect(answer(await search({ q: "x", sort: "weird" }))).toEqual({ status: 400, body: { error: "unknown query parameter 'sort'" } });
  });
});

describe("not errors", () => {
  test("an empty or omitted q, a limit above 100 and an unknown mailbox all answer 200 with no results", async () => {
    expect(answer(await search({}))).toEqual({ status: 200, body: EMPTY });
    expect(answer(await search({ q: "" }))).toEqual({ status: 200, body: EMPTY });
    expect(answer(await search({ q: "x", limit: "1000" }))).toEqual({ status: 200, body: EMPTY });
    expect(answer(await search({ q: "x", mailbox_id: "mbx_doesnotexist" }))).toEqual({ status: 200, body: EMPTY });
  });
});
