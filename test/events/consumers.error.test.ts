// The consumers routes given bad input: each refusal has its exact status and error string, and a
// refused call leaves the consumer as it was. consumers.test.ts checks some of these statuses;
// this file pins the bodies and covers the rest of the inputs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";

let ctx: TestContext;
let account: Fixture;
let mailbox: { id: string };
let other: { id: string };

const post = (path: string, body: unknown, key: string = account.key) => ctx.request("POST", `/api/v1${path}`, { key, body });
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });
const consumer = async (name: string) => (await ctx.request("GET", `/api/v1/consumers/${name}`, { key: account.key })).body;

const NOT_FOUND = { error: "not found" };

beforeAll(async () => {
  ctx = await makeTestContext();
  account = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, account, "workers");
  other = await makeMailbox(ctx, account, "other");
  await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject: "first" });
  expect((await post("/consumers", { name: "worker", mailbox_id: mailbox.id })).status).toBe(201);
});

afterAll(async () => {
  await ctx.close();
});

describe("creating a consumer", () => {
  test("a name with characters outside letters, digits, '.', '_' and '-' is 400 with the rule in the error", async () => {
    for (const name of ["bad name", "bad/name", "-leading-dash", ".leading-dot", "émoji"]) {
      const response = await post("/consumers", { name });
      expect({ name, ...answer(response) }).toEqual({
        name,
        status: 400,
        body: { error: "consumer name must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit" },
      });
    }
  });

  test("an empty, a missing, a too long or a non-string name is 400; nothing is created", async () => {
    for (const body of [{ name: "" }, {}, { name: "a".repeat(65) }, { name: 42 }]) {
      const response = await post("/consumers", body);
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe("string");
    }
    expect(answer(await ctx.request("GET", `/api/v1/consumers/${"a".repeat(64)}`, { key: account.key }))).toEqual({
      status: 404,
      body: NOT_FOUND,
    });
  });

  test("a 64-character name is the longest accepted", async () => {
    expect((await post("/consumers", { name: "b".repeat(64) })).status).toBe(201);
  });

  test("an unknown field or an empty mailbox_id is 400", async () => {
    expect((await post("/consumers", { name: "extra", surprise: true })).status).toBe(400);
    expect((await post("/consumers", { name: "empty", mailbox_id: "" })).status).toBe(400);
  });

  test("an unknown mailbox is 404 not found", async () => {
    expect(answer(await post("/consumers", { name: "ghost", mailbox_id: "mbx_doesnotexist" }))).toEqual({ status: 404, body: NOT_FOUND });
  });

  test("the same name with another mailbox scope is 409, and the consumer keeps its scope", async () => {
    for (const body of [{ name: "worker", mailbox_id: other.id }, { name: "worker" }]) {
      expect(answer(await post("/consumers", body))).toEqual({
        status: 409,
        body: { error: "a consumer with this name exists for another mailbox scope" },
      });
    }
    expect((await consumer("worker")).mailbox_id).toBe(mailbox.id);
  });

  test("a body that is not JSON is 400", async () => {
    const response = await ctx.request("POST", "/api/v1/consumers", {
      key: account.key,
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(400);
  });
});

describe("claiming and acknowledging", () => {
  test("an unknown consumer is 404 not found on get, claim and ack", async () => {
    expect(answer(await ctx.request("GET", "/api/v1/consumers/nobody", { key: account.key }))).toEqual({ status: 404, body: NOT_FOUND });
    expect(answer(await post("/consumers/nobody/claim", {}))).toEqual({ status: 404, body: NOT_FOUND });
    const cursor = (await appendTestEvent(ctx.sql, account.accountId, mailbox.id)).cursor;
    expect(answer(await post("/consumers/nobody/ack", { cursors: [cursor] }))).toEqual({ status: 404, body: NOT_FOUND });
  });

  test("claim: limit and lease_seconds below 1, above their maximum or not integers are 400; nothing is leased", async () => {
    for (const body of [{ limit: 0 }, { limit: 501 }, { limit: 1.5 }, { lease_seconds: 0 }, { lease_seconds: 1e9 }, { other: 1 }]) {
      const response = await post("/consumers/worker/claim", body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    const claimed = await post("/consumers/worker/claim", { limit: 10 });
    expect(claimed.status).toBe(200);
    // Had a refused claim leased anything, the first event would not be free now.
    expect(claimed.body.events.map((e: { event: { subject: string } }) => e.event.subject)).toContain("first");
    expect(claimed.body.events.map((e: { deliveries: number }) => e.deliveries)).toEqual(claimed.body.events.map(() => 1));
  });

  test("ack: an empty list, a missing list, a malformed cursor or an over-long one is 400; acked_through does not move", async () => {
    const before = (await consumer("worker")).acked_through;
    for (const body of [{ cursors: [] }, {}, { cursors: ["not a cursor!"] }, { cursors: ["x".repeat(33)] }, { cursors: "abc" }]) {
      const response = await post("/consumers/worker/ack", body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    expect((await consumer("worker")).acked_through).toBe(before);
  });

  test("an over-long consumer name in the path is 400, not a lookup", async () => {
    const name = "c".repeat(65);
    expect((await ctx.request("GET", `/api/v1/consumers/${name}`, { key: account.key })).status).toBe(400);
    expect((await post(`/consumers/${name}/claim`, {})).status).toBe(400);
  });
});
