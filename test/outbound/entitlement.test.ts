// Sending from a custom-domain mailbox needs a paid plan, checked on every send (the contract: 403
// "custom-domain entitlement rejection"); and what goes into headers is refused at the API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateAccount } from "../../src/core/accounts/accounts.ts";
import { createKey } from "../../src/core/accounts/keys.ts";
import { type Outbound, startOutbound } from "../support/outbound.ts";

let o: Outbound;
let paidKey: string;
let paidAccountId: string;
let customMailboxId: string;

beforeAll(async () => {
  o = await startOutbound();
  const [account] = await o.ctx.sql`insert into accounts (id, name, plan) values ('acc_entitled', 'Paid', 'paid') returning id`;
  paidAccountId = account!.id;
  paidKey = (await createKey(o.ctx.sql, { accountId: paidAccountId, scope: "api" })).secret;
  await o.ctx.sql`
    insert into domains (id, account_id, name, status, dkim_selector, dkim_private_key, dkim_public_key, records)
    values ('dom_entitled', ${paidAccountId}, 'custom.example', 'verified', 'svc1', ${(await import("../../src/mail/dkim-keys.ts").then((m) => m.generateDkimKeyPair())).privateKeyPem}, 'x', '[]')`;
  const created = await o.ctx.request("POST", "/api/v1/mailboxes", { key: paidKey, body: { slug: "hello", domain_id: "dom_entitled" } });
  expect(created.body.address).toBe("hello@custom.example");
  customMailboxId = created.body.id;
});

afterAll(() => o.close());

describe("custom-domain entitlement on send", () => {
  const body = () => ({ mailbox_id: customMailboxId, to: "bob@example.org", text: "Hi" });

  test("a paid account sends from its custom domain", async () => {
    expect((await o.send(body(), paidKey)).status).toBe(201);
  });

  test("after a downgrade, send and draft send are 403 and nothing is delivered", async () => {
    const draft = await o.ctx.request("POST", "/api/v1/drafts", { key: paidKey, body: body() });
    expect(draft.status).toBe(201);
    await updateAccount(o.ctx.sql, paidAccountId, { plan: "free" });
    const atSink = o.sink.messages.length;
    const sent = await o.send(body(), paidKey);
    expect({ status: sent.status, body: sent.body }).toEqual({ status: 403, body: { error: "custom domains require a paid plan" } });
    const draftSent = await o.ctx.request("POST", `/api/v1/drafts/${draft.body.id}/send`, { key: paidKey });
    expect({ status: draftSent.status, body: draftSent.body }).toEqual({
      status: 403,
      body: { error: "custom domains require a paid plan" },
    });
    expect(o.sink.messages.length).toBe(atSink);
    await updateAccount(o.ctx.sql, paidAccountId, { plan: "paid" });
  });
});

describe("header safety at the API", () => {
  test("a display name with a line break is 400 and creates no mailbox", async () => {
    const response = await o.ctx.request("POST", "/api/v1/mailboxes", {
      key: o.owner.key,
      body: { slug: "crlf", display_name: "Evil\r\nBcc: x@y.z" },
    });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400,
      body: { error: "display_name must not contain control characters or line breaks" },
    });
    const [row] = await o.ctx.sql`select count(*)::int as n from mailboxes where local_part = 'agent-crlf'`;
    expect(row!.n).toBe(0);
  });

  test("replying to an inbound message with a malformed Message-ID still sends (unthreaded for the recipient)", async () => {
    const [message] = await o.ctx.sql`
      insert into messages (id, account_id, mailbox_id, direction, rfc_message_id, thread_id, from_addr, to_addr, subject)
      values ('msg_badid', ${o.owner.accountId}, ${o.mailbox.id}, 'in', 'no-at-sign', 'thr_badid', 'carol@example.org', ${o.mailbox.address}, 'Question')
      returning id`;
    const response = await o.send({ mailbox_id: o.mailbox.id, reply_to_message_id: message!.id, text: "Answer" });
    expect(response.status).toBe(201);
    expect(response.body.thread_id).toBe("thr_badid");
  });
});
