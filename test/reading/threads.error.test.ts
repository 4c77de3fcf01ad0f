// GET /api/v1/threads, /threads/{id} and /threads/{id}/labels given bad input: each refusal's exact
// status and error string. threads.test.ts checks the cursor's error string and the statuses of a
// missing mailbox_id and an unknown thread; this file pins the rest of the strings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;
let mailbox: { id: string };

const NOT_FOUND = '{"error":"thread not found"}';
const get = (path: string) => ctx.request("GET", `/api/v1${path}`, { key: owner.key });
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  owner = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, owner, "threads");
});

afterAll(async () => {
  await ctx.close();
});

describe("GET /threads", () => {
  test("mailbox_id missing or empty is 400 with its exact error", async () => {
    expect(answer(await get("/threads"))).toEqual({ status: 400, body: { error: "mailbox_id is required" } });
    expect(answer(await get("/threads?mailbox_id="))).toEqual({ status: 400, body: { error: "mailbox_id must be at least 1 character" } });
  });

  test("a limit that is not an integer is 400 limit must be an integer >= 1", async () => {
    expect(answer(await get(`/threads?mailbox_id=${mailbox.id}&limit=abc`))).toEqual({
      status: 400,
      body: { error: "limit must be an integer >= 1" },
    });
  });

  test("a limit of 0 is 400 limit must be an integer >= 1", async () => {
    expect(answer(await get(`/threads?mailbox_id=${mailbox.id}&limit=0`))).toEqual({
      status: 400,
      body: { error: "limit must be an integer >= 1" },
    });
  });

  test("a limit above 100 is clamped, not refused", async () => {
    expect(answer(await get(`/threads?mailbox_id=${mailbox.id}&limit=1000`))).toEqual({
      status: 200,
      body: { threads: [], next_cursor: null },
    });
  });

  test("a label filter that is too long or has characters outside the rule is 400 saying so", async () => {
    expect(answer(await get(`/threads?mailbox_id=${mailbox.id}&label=${"x".repeat(200)}`))).toEqual({
      status: 400,
      body: { error: "label must be 1 to 64 characters" },
    });
    expect(answer(await get(`/threads?mailbox_id=${mailbox.id}&label=Bad%20Label`))).toEqual({
      status: 400,
      body: { error: 'label must be 1 to 64 characters of a-z, 0-9 and _ . : / - (starting with a letter or digit): "Bad Label"' },
    });
  });

  test("an unknown query parameter is 400 naming it", async () => {
    expect(answer(await get(`/threads?mailbox_id=${mailbox.id}&sort=newest`))).toEqual({
      status: 400,
      body: { error: "unknown query parameter 'sort'" },
    });
  });
});

describe("unknown thread ids", () => {
  test("GET /threads/{id}, GET and POST /threads/{id}/labels are 404 thread not found, byte for byte", async () => {
    for (const response of [
      await get("/threads/thr_doesnotexist"),
      await get("/threads/thr_doesnotexist/labels"),
      await ctx.request("POST", "/api/v1/threads/thr_doesnotexist/labels", { key: owner.key, body: { add: ["x"] } }),
    ]) {
      expect({ status: response.status, text: response.text }).toEqual({ status: 404, text: NOT_FOUND });
    }
  });
});
