// The drafts routes given bad input: every refusal's exact status and error string. drafts.test.ts
// asserts that these inputs are 400 with an `error` field; this file pins the strings (the contract
// keeps them unchanged), adds type errors and the list's query, and checks that a refused edit
// changes nothing and that a tombstoned draft is the missing id's 404 on every route.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;
let mailbox: { id: string };

const NOT_FOUND = '{"error":"draft not found"}';
const req = (method: string, path: string, body?: unknown) => ctx.request(method, `/api/v1${path}`, { key: owner.key, body });
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

async function createDraft(): Promise<string> {
  const response = await req("POST", "/drafts", { mailbox_id: mailbox.id, to: "alice@example.org", subject: "Kept", text: "Kept text" });
  expect(response.status).toBe(201);
  return response.body.id;
}

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  owner = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, owner, "drafts");
});

afterAll(async () => {
  await ctx.close();
});

describe("POST /drafts", () => {
  test("each invalid body is 400 with its exact error, and no draft is created", async () => {
    const base = { mailbox_id: mailbox.id, to: "alice@example.org", text: "Hi" };
    const cases: [Record<string, unknown>, string][] = [
      [{ to: "alice@example.org", text: "Hi" }, "mailbox_id is required"],
      [{ mailbox_id: mailbox.id, to: "alice@example.org" }, "text is required"],
      [{ ...base, text: "" }, "text must be 1 to 500000 characters"],
      [{ ...base, text: 5 }, "text must be a string"],
      [{ mailbox_id: mailbox.id, text: "Hi" }, "to is required unless reply_to_message_id is supplied"],
      [{ ...base, to: "a@example.org, b@example.org" }, "to must be exactly one email address"],
      [{ ...base, to: "not an address" }, "to is not a valid email address"],
      [{ ...base, to: "a@example.org\r\nBcc: e@evil.example" }, "to must not contain line breaks"],
      [{ ...base, subject: "a\r\nb" }, "subject must not contain line breaks"],
      [{ ...base, client_id: "draft:1" }, "client_id must not start with 'draft:' (reserved)"],
      [{ ...base, client_id: "" }, "client_id must be 1 to 256 characters"],
      [{ ...base, client_id: "x".repeat(257) }, "client_id must be 1 to 256 characters"],
      [{ ...base, status: "sent" }, "unknown field 'status'"],
    ];
    for (const [body, error] of cases) {
      const response = await req("POST", "/drafts", body);
      expect({ sent: body, status: response.status, body: response.body }).toEqual({ sent: body, status: 400, body: { error } });
    }
    expect((await req("GET", `/drafts?mailbox_id=${mailbox.id}`)).body).toEqual({ drafts: [] });
  });

  test("an unknown mailbox is 404 not found; an unknown original message 404 message not found", async () => {
    const base = { mailbox_id: mailbox.id, to: "alice@example.org", text: "Hi" };
    expect(answer(await req("POST", "/drafts", { ...base, mailbox_id: "mbx_doesnotexist" }))).toEqual({
      status: 404,
      body: { error: "not found" },
    });
    expect(answer(await req("POST", "/drafts", { ...base, reply_to_message_id: "msg_doesnotexist" }))).toEqual({
      status: 404,
      body: { error: "message not found" },
    });
  });
});

describe("GET /drafts", () => {
  test("mailbox_id missing or empty is 400 with its exact error", async () => {
    expect(answer(await req("GET", "/drafts"))).toEqual({ status: 400, body: { error: "mailbox_id is required" } });
    expect(answer(await req("GET", "/drafts?mailbox_id="))).toEqual({
      status: 400,
      body: { error: "mailbox_id must be at least 1 character" },
    });
  });

  test("an unknown mailbox lists nothing", async () => {
    expect(answer(await req("GET", "/drafts?mailbox_id=mbx_doesnotexist"))).toEqual({ status: 200, body: { drafts: [] } });
  });
});

describe("PATCH /drafts/{id}", () => {
  test("each invalid edit is 400 with its exact error, and the draft is unchanged", async () => {
    const id = await createDraft();
    const before = (await req("GET", `/drafts/${id}`)).body;
    const cases: [Record<string, unknown>, string][] = [
      [{ to: "a@example.org, b@example.org" }, "to must be exactly one email address"],
      [{ to: "Team: a@example.org;" }, "to must be exactly one email address, not a group"],
      [{ to: "not an address" }, "to is not a valid email address"],
      [{ to: 5 }, "to must be a string"],
      [{ subject: "x\r\nBcc: e@evil.example" }, "subject must not contain line breaks"],
      [{ text: "" }, "text must be 1 to 500000 characters"],
      [{ reply_to_message_id: "msg_x" }, "reply_to_message_id cannot be changed"],
      [{ reply_to_message_id: null }, "reply_to_message_id cannot be changed"],
      [{ status: "sent" }, "unknown field 'status'"],
    ];
    for (const [body, error] of cases) {
      const response = await req("PATCH", `/drafts/${id}`, body);
      expect({ edit: body, status: response.status, body: response.body }).toEqual({ edit: body, status: 400, body: { error } });
    }
    expect((await req("GET", `/drafts/${id}`)).body).toEqual(before);
  });
});

describe("unknown and tombstoned ids", () => {
  const routes = (id: string): [string, string, unknown?][] => [
    ["GET", `/drafts/${id}`],
    ["PATCH", `/drafts/${id}`, { text: "x" }],
    ["POST", `/drafts/${id}/send`],
    ["DELETE", `/drafts/${id}`],
  ];

  test("an unknown id is 404 draft not found on every route", async () => {
    for (const [method, path, body] of routes("drf_doesnotexist")) {
      const response = await req(method, path, body);
      expect({ call: `${method} ${path}`, status: response.status, text: response.text }).toEqual({
        call: `${method} ${path}`,
        status: 404,
        text: NOT_FOUND,
      });
    }
  });

  test("a deleted draft is the same 404 on every route, the second delete included", async () => {
    const id = await createDraft();
    const deleted = await req("DELETE", `/drafts/${id}`);
    expect({ status: deleted.status, text: deleted.text }).toEqual({ status: 204, text: "" });
    for (const [method, path, body] of routes(id)) {
      const response = await req(method, path, body);
      expect({ call: `${method} ${path}`, status: response.status, text: response.text }).toEqual({
        call: `${method} ${path}`,
        status: 404,
        text: NOT_FOUND,
      });
    }
  });
});
