// POST/DELETE /api/v1/messages/{id}/feedback: what is refused and how.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { toRaw, unwantedMessage } from "../fixtures/feedback/stream.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxRow } from "../support/mailbox-row.ts";

let ctx: TestContext;
let owner: Fixture;
let inbound: string;
let inbox: { id: string; address: string };

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  owner = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "inbox");
  const [id] = await acceptInbound(ctx.svc, toRaw(unwantedMessage(1), inbox.address), [(await mailboxRow(ctx, inbox.id))!], {
    remoteIp: null,
    helo: null,
    mailFrom: null,
  });
  await screenMessage(ctx.svc, id!);
  inbound = id!;
});
afterAll(() => ctx.close());

const post = (id: string, body: unknown, key: string | null = owner.key) =>
  ctx.request("POST", `/api/v1/messages/${id}/feedback`, { key, ...(body === undefined ? {} : { body }) });

test("400 for a missing, unknown or extra field, and for a body that is not an object", async () => {
  for (const body of [{}, { verdict: "maybe" }, { verdict: "spam", note: "x" }, { verdict: 1 }, "[]"]) {
    const response = await post(inbound, body);
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe("string");
  }
  expect((await ctx.sql`select 1 from message_feedback`).length).toBe(0);
});

test("400 for outbound mail: its verdicts are ours", async () => {
  const sent = await ctx.request("POST", "/api/v1/send", {
    key: owner.key,
    body: { mailbox_id: inbox.id, to: "someone@example.com", subject: "hi", text: "hello" },
  });
  expect(sent.status).toBe(201);
  const response = await post(sent.body.id, { verdict: "spam" });
  expect(response).toMatchObject({ status: 400, body: { error: "feedback applies to inbound messages only" } });
});

test("404 message not found for an unknown id; DELETE too; 401 without a key; 400 for an unknown axis", async () => {
  expect(await post("msg_missing", { verdict: "spam" })).toMatchObject({ status: 404, body: { error: "message not found" } });
  expect(await ctx.request("DELETE", "/api/v1/messages/msg_missing/feedback", { key: owner.key })).toMatchObject({
    status: 404,
    body: { error: "message not found" },
  });
  expect((await post(inbound, { verdict: "spam" }, null)).status).toBe(401);
  expect((await ctx.request("DELETE", `/api/v1/messages/${inbound}/feedback?axis=everything`, { key: owner.key })).status).toBe(400);
});

test("a body over the request limit is refused before it is read", async () => {
  const response = await post(inbound, JSON.stringify({ verdict: "spam", pad: "x".repeat(ctx.config.maxRequestBytes) }));
  expect(response.status).toBe(413);
});
