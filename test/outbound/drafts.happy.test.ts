// The drafts routes' main flow end to end, each answer with the contract's exact fields and status:
// create (201 {id, status}), list (200 {drafts}), get and edit (200 Draft), send (201 with id,
// draft_id, thread_id, provider_message_id, then the draft is gone), send on a mailbox that requires
// approval (202 {draft_id, status}), delete (204, no content). drafts.test.ts covers every state
// transition, races and reconciliation; this file is the straight path, over the local transport.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateMailboxSettings } from "../../src/core/mailboxes.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;
let mailbox: { id: string; address: string };
let gated: { id: string; address: string };

const DRAFT_FIELDS = [
  "created_at",
  "id",
  "mailbox_id",
  "reply_to_message_id",
  "requires_human",
  "status",
  "subject",
  "text",
  "thread_id",
  "to",
  "updated_at",
];
const req = (method: string, path: string, body?: unknown) => ctx.request(method, `/api/v1${path}`, { key: owner.key, body });

async function create(mailboxId: string, subject: string): Promise<string> {
  const response = await req("POST", "/drafts", { mailbox_id: mailboxId, to: "Alice <alice@example.org>", subject, text: "Hello Alice" });
  expect(response.status).toBe(201);
  expect(Object.keys(response.body).sort()).toEqual(["id", "status"]);
  expect(response.body.status).toBe("draft");
  return response.body.id;
}

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  owner = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, owner, "writer");
  gated = await makeMailbox(ctx, owner, "gated");
  await updateMailboxSettings(ctx.sql, owner, gated.id, { requireApproval: true });
});

afterAll(async () => {
  await ctx.close();
});

describe("a draft from creation to delivery", () => {
  let id: string;

  test("create is 201 with exactly id and status draft", async () => {
    id = await create(mailbox.id, "First draft");
  });

  test("list is 200 with exactly drafts, each a full Draft", async () => {
    const response = await req("GET", `/drafts?mailbox_id=${mailbox.id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["drafts"]);
    expect(response.body.drafts.map((d: { id: string }) => d.id)).toEqual([id]);
    expect(Object.keys(response.body.drafts[0]).sort()).toEqual(DRAFT_FIELDS);
  });

  test("get is 200 with the Draft's values: the recipient as a bare address, a new thread, no human required", async () => {
    const response = await req("GET", `/drafts/${id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(DRAFT_FIELDS);
    expect(response.body).toMatchObject({
      id,
      mailbox_id: mailbox.id,
      status: "draft",
      to: "alice@example.org",
      subject: "First draft",
      text: "Hello Alice",
      reply_to_message_id: null,
      requires_human: false,
    });
    expect(response.body.thread_id).toStartWith("thr_");
    expect(Number.isNaN(Date.parse(response.body.created_at))).toBe(false);
  });

  test("edit is 200 with the merged Draft", async () => {
    const response = await req("PATCH", `/drafts/${id}`, { subject: "Edited draft" });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(DRAFT_FIELDS);
    expect(response.body).toMatchObject({ id, subject: "Edited draft", text: "Hello Alice", to: "alice@example.org" });
  });

  test("send is 201 with exactly id, draft_id, thread_id and provider_message_id; the sent message is readable", async () => {
    const thread = (await req("GET", `/drafts/${id}`)).body.thread_id;
    const response = await req("POST", `/drafts/${id}/send`);
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["draft_id", "id", "provider_message_id", "thread_id"]);
    expect(response.body).toMatchObject({ draft_id: id, thread_id: thread });
    const sent = await req("GET", `/messages/${response.body.id}`);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ direction: "out", subject: "Edited draft", to_addr: "alice@example.org" });
  });

  test("the sent draft is tombstoned: gone from the list, 404 on get", async () => {
    expect((await req("GET", `/drafts?mailbox_id=${mailbox.id}`)).body).toEqual({ drafts: [] });
    expect((await req("GET", `/drafts/${id}`)).status).toBe(404);
  });
});

describe("other endings", () => {
  test("on a mailbox that requires approval, send is 202 with exactly draft_id and status pending_approval", async () => {
    const id = await create(gated.id, "Needs a human");
    const response = await req("POST", `/drafts/${id}/send`);
    expect({ status: response.status, body: response.body }).toEqual({ status: 202, body: { draft_id: id, status: "pending_approval" } });
    expect((await req("GET", `/drafts/${id}`)).body.status).toBe("pending_approval");
  });

  test("delete is 204 with no content, and the draft is gone", async () => {
    const id = await create(mailbox.id, "Never mind");
    const response = await req("DELETE", `/drafts/${id}`);
    expect({ status: response.status, text: response.text }).toEqual({ status: 204, text: "" });
    expect((await req("GET", `/drafts/${id}`)).status).toBe(404);
  });
});
