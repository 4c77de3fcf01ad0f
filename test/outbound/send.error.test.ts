// POST /api/v1/send error rows: validation (400), missing mailbox or original (404), quota (402),
// send lists (403), suppressions (422), the relay's answers (400 / 502) and the order of checks
// docs/api.md lists.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { updateAccount } from "../../src/core/accounts/accounts.ts";
import { updateMailboxSettings } from "../../src/core/mailboxes.ts";
import { addSendListEntry } from "../../src/core/outbound/sendlists.ts";
import { addSuppression } from "../../src/core/outbound/suppressions.ts";
import { makeAccount, makeMailbox, makeTestContext } from "../support/context.ts";
import { closedPort, deliverInbound, type Outbound, startOutbound } from "../support/outbound.ts";

// Subprocesses, the worker and a loaded CI machine need more than the default 5 s.
setDefaultTimeout(30_000);

let o: Outbound;

beforeAll(async () => {
  o = await startOutbound();
});

afterAll(async () => {
  await o.close();
});

afterEach(() => {
  o.sink.mode = "accept";
});

/** A separate account and mailbox, so quota, lists and suppressions do not leak between tests. */
async function freshSender(slug: string) {
  const account = await makeAccount(o.ctx);
  const mailbox = await makeMailbox(o.ctx, account, slug);
  return {
    ...account,
    mailbox,
    send: (body: Record<string, unknown>) => o.send({ mailbox_id: mailbox.id, text: "Hello", ...body }, account.key),
  };
}

async function outboundRows(mailboxId: string) {
  return o.ctx.sql`select id, delivery_status from messages where mailbox_id = ${mailboxId} and direction = 'out'`;
}

describe("400 validation", () => {
  const valid = () => ({ mailbox_id: o.mailbox.id, to: "alice@example.org", text: "Hello" });
  const cases: [string, () => unknown, RegExp?][] = [
    ["missing mailbox_id", () => ({ to: "alice@example.org", text: "Hello" }), /mailbox_id/],
    ["empty mailbox_id", () => ({ ...valid(), mailbox_id: "" }), /mailbox_id/],
    ["missing text", () => ({ mailbox_id: o.mailbox.id, to: "alice@example.org" }), /text/],
    ["empty text", () => ({ ...valid(), text: "" }), /text/],
    ["empty client_id", () => ({ ...valid(), client_id: "" }), /client_id/],
    ["client_id of 257 characters", () => ({ ...valid(), client_id: "c".repeat(257) }), /client_id/],
    ["client_id with the reserved draft: prefix", () => ({ ...valid(), client_id: "draft:abc" }), /draft:/],
    ["to as a comma list", () => ({ ...valid(), to: "alice@example.org, bob@example.org" }), /exactly one/],
    ["to as a semicolon list", () => ({ ...valid(), to: "alice@example.org; bob@example.org" }), /exactly one/],
    ["to as a group", () => ({ ...valid(), to: "Team: alice@example.org, bob@example.org;" }), /exactly one|group/],
    ["to as two bare addresses", () => ({ ...valid(), to: "alice@example.org bob@example.org" })],
    ["to empty", () => ({ ...valid(), to: "" })],
    ["to blank", () => ({ ...valid(), to: "   " })],
    ["to malformed", () => ({ ...valid(), to: "not-an-address" })],
    ["to without a dot in the domain", () => ({ ...valid(), to: "alice@localhost" })],
    ["to with CRLF and a smuggled header", () => ({ ...valid(), to: "alice@example.org\r\nBcc: eve@evil.example" }), /line break/],
    ["to with a bare LF", () => ({ ...valid(), to: "alice@example.org\nBcc: eve@evil.example" }), /line break/],
    ["to as a JSON array", () => ({ ...valid(), to: ["alice@example.org"] })],
    ["subject with CRLF", () => ({ ...valid(), subject: "Hi\r\nBcc: eve@evil.example" }), /subject/],
    ["subject with a bare CR", () => ({ ...valid(), subject: "Hi\rthere" }), /subject/],
    ["to missing when not replying", () => ({ mailbox_id: o.mailbox.id, text: "Hello" }), /to is required/],
    ["an unknown field", () => ({ ...valid(), cc: "bob@example.org" })],
    ["a body that is not an object", () => ["x"]],
  ];

  for (const [name, body, message] of cases) {
    test(name, async () => {
      const before = o.sink.messages.length;
      const response = await o.send(body());
      expect(response.status).toBe(400);
      expect(Object.keys(response.body)).toEqual(["error"]);
      expect(typeof response.body.error).toBe("string");
      if (message) expect(response.body.error).toMatch(message);
      expect(o.sink.messages.length).toBe(before);
    });
  }

  test("malformed JSON is 400", async () => {
    const response = await o.send("{not json");
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: "request body is not valid JSON" });
  });

  test("a client_id of exactly 256 characters is accepted", async () => {
    const response = await o.send({ ...valid(), client_id: "c".repeat(256) });
    expect(response.status).toBe(201);
  });

  test("validation runs before the mailbox lookup", async () => {
    const response = await o.send({ mailbox_id: "mbx_missing", to: "alice@example.org" });
    expect(response.status).toBe(400);
  });
});

describe("404", () => {
  test("an unknown mailbox", async () => {
    const response = await o.send({ mailbox_id: "mbx_doesnotexist", to: "alice@example.org", text: "Hello" });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: "not found" });
  });

  test("another account's mailbox is the same 404", async () => {
    const stranger = await makeAccount(o.ctx);
    const theirs = await makeMailbox(o.ctx, stranger, "theirs-404");
    const missing = await o.send({ mailbox_id: "mbx_doesnotexist", to: "alice@example.org", text: "Hello" });
    const foreign = await o.send({ mailbox_id: theirs.id, to: "alice@example.org", text: "Hello" });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
  });

  test("the original of a reply: missing, in another mailbox, in another account — one identical 404", async () => {
    const sibling = await makeMailbox(o.ctx, o.owner, "sibling-404");
    const inSibling = await deliverInbound(o.ctx, sibling.id, { from: "x@example.org" });
    const stranger = await makeAccount(o.ctx);
    const strangerBox = await makeMailbox(o.ctx, stranger, "stranger-404");
    const inStranger = await deliverInbound(o.ctx, strangerBox.id, { from: "y@example.org" });
    const before = o.sink.messages.length;
    const bodies: string[] = [];
    for (const id of ["msg_doesnotexist", inSibling, inStranger]) {
      const response = await o.send({ mailbox_id: o.mailbox.id, reply_to_message_id: id, text: "re" });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: "message not found" });
      bodies.push(response.text);
    }
    expect(new Set(bodies).size).toBe(1);
    expect(o.sink.messages.length).toBe(before);
  });
});

describe("402 monthly quota", () => {
  test("exhausted quota is 402 and terminal for that client_id", async () => {
    const s = await freshSender("quota-0");
    await updateAccount(o.ctx.sql, s.accountId, { monthlySendQuota: 0 });
    const before = o.sink.messages.length;
    const first = await s.send({ to: "alice@example.org", client_id: "q-1" });
    expect(first.status).toBe(402);
    expect(first.body).toEqual({ error: "monthly send quota exhausted" });

    // Raising the quota does not revive the client_id: the 402 was stored.
    await updateAccount(o.ctx.sql, s.accountId, { monthlySendQuota: 10 });
    const retry = await s.send({ to: "alice@example.org", client_id: "q-1" });
    expect(retry.status).toBe(402);
    expect(retry.text).toBe(first.text);
    expect(o.sink.messages.length).toBe(before);
    // A new client_id is a new send.
    expect((await s.send({ to: "alice@example.org", client_id: "q-2" })).status).toBe(201);
  });

  test("the quota counts sends: the (n+1)th send of the month is 402", async () => {
    const s = await freshSender("quota-2");
    await updateAccount(o.ctx.sql, s.accountId, { monthlySendQuota: 2 });
    expect((await s.send({ to: "a@example.org" })).status).toBe(201);
    expect((await s.send({ to: "b@example.org" })).status).toBe(201);
    const third = await s.send({ to: "c@example.org" });
    expect(third.status).toBe(402);
    expect(third.body).toEqual({ error: "monthly send quota exhausted" });
  });

  test("concurrent sends cannot overdraw the quota", async () => {
    const s = await freshSender("quota-race");
    await updateAccount(o.ctx.sql, s.accountId, { monthlySendQuota: 3 });
    const before = o.sink.messages.length;
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => s.send({ to: `r${i}@example.org` })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 402, 402, 402, 402, 402, 402, 402]);
    expect(o.sink.messages.length).toBe(before + 3);
  });

  test("a delivery that definitely failed gives its quota back", async () => {
    const s = await freshSender("quota-refund");
    await updateAccount(o.ctx.sql, s.accountId, { monthlySendQuota: 1 });
    o.sink.mode = "reject550";
    expect((await s.send({ to: "a@example.org" })).status).toBe(400);
    o.sink.mode = "defer451";
    expect((await s.send({ to: "a@example.org" })).status).toBe(502);
    o.sink.mode = "accept";
    expect((await s.send({ to: "a@example.org" })).status).toBe(201);
    expect((await s.send({ to: "a@example.org" })).status).toBe(402);
  });
});

describe("403 send_blocked_by_list", () => {
  test("account-scope block of an exact address: exact body with list_entry_id", async () => {
    const s = await freshSender("block-account");
    const entry = await addSendListEntry(o.ctx.sql, { accountId: s.accountId, kind: "block", pattern: "mallory@example.org" });
    const before = o.sink.messages.length;
    const response = await s.send({ to: "Mallory <MALLORY@Example.org>" });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ code: "send_blocked_by_list", reason: "block_match", scope: "account", list_entry_id: entry.id });
    expect(o.sink.messages.length).toBe(before);
    expect(await outboundRows(s.mailbox.id)).toHaveLength(0);
    // Others still go out.
    expect((await s.send({ to: "alice@example.org" })).status).toBe(201);
  });

  test("account-scope block of a whole domain", async () => {
    const s = await freshSender("block-domain");
    const entry = await addSendListEntry(o.ctx.sql, { accountId: s.accountId, kind: "block", pattern: "spam.example" });
    const response = await s.send({ to: "anyone@spam.example" });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ code: "send_blocked_by_list", reason: "block_match", scope: "account", list_entry_id: entry.id });
    // A subdomain is not the domain.
    expect((await s.send({ to: "anyone@sub.spam.example" })).status).toBe(201);
  });

  test("mailbox-scope block applies to that mailbox only", async () => {
    const s = await freshSender("block-mailbox");
    const other = await makeMailbox(o.ctx, s, "block-mailbox-other");
    const entry = await addSendListEntry(o.ctx.sql, {
      accountId: s.accountId,
      mailboxId: s.mailbox.id,
      kind: "block",
      pattern: "nina@example.org",
    });
    const response = await s.send({ to: "nina@example.org" });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ code: "send_blocked_by_list", reason: "block_match", scope: "mailbox", list_entry_id: entry.id });
    const fromOther = await o.send({ mailbox_id: other.id, to: "nina@example.org", text: "hi" }, s.key);
    expect(fromOther.status).toBe(201);
  });

  test("account-scope allow list: a recipient matching none is no_allow_match without list_entry_id", async () => {
    const s = await freshSender("allow-account");
    await addSendListEntry(o.ctx.sql, { accountId: s.accountId, kind: "allow", pattern: "partner.example" });
    const response = await s.send({ to: "someone@elsewhere.example" });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ code: "send_blocked_by_list", reason: "no_allow_match", scope: "account" });
    expect((await s.send({ to: "someone@partner.example" })).status).toBe(201);
  });

  test("mailbox-scope allow list: no_allow_match with scope mailbox", async () => {
    const s = await freshSender("allow-mailbox");
    await addSendListEntry(o.ctx.sql, { accountId: s.accountId, mailboxId: s.mailbox.id, kind: "allow", pattern: "olga@partner.example" });
    const response = await s.send({ to: "pete@partner.example" });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ code: "send_blocked_by_list", reason: "no_allow_match", scope: "mailbox" });
    expect((await s.send({ to: "olga@partner.example" })).status).toBe(201);
  });

  test("a block entry wins over an allow entry for the same recipient", async () => {
    const s = await freshSender("block-wins");
    await addSendListEntry(o.ctx.sql, { accountId: s.accountId, kind: "allow", pattern: "partner.example" });
    const block = await addSendListEntry(o.ctx.sql, {
      accountId: s.accountId,
      mailboxId: s.mailbox.id,
      kind: "block",
      pattern: "quinn@partner.example",
    });
    const response = await s.send({ to: "quinn@partner.example" });
    expect(response.body).toEqual({ code: "send_blocked_by_list", reason: "block_match", scope: "mailbox", list_entry_id: block.id });
  });

  test("another account's lists do not apply", async () => {
    const s = await freshSender("lists-isolated");
    const stranger = await makeAccount(o.ctx);
    await addSendListEntry(o.ctx.sql, { accountId: stranger.accountId, kind: "block", pattern: "rita@example.org" });
    expect((await s.send({ to: "rita@example.org" })).status).toBe(201);
  });
});

describe("422 suppressed recipient", () => {
  for (const reason of ["bounce", "complaint", "unsubscribe"] as const) {
    test(`suppressed by ${reason}`, async () => {
      const s = await freshSender(`suppressed-${reason}`);
      await addSuppression(o.ctx.sql, { accountId: s.accountId, address: `${reason}@example.org`, reason });
      const before = o.sink.messages.length;
      const response = await s.send({ to: `${reason.toUpperCase()}@EXAMPLE.org`, client_id: `sup-${reason}` });
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ error: "recipient is suppressed (bounce, complaint or unsubscribe)" });
      expect(o.sink.messages.length).toBe(before);
      expect(await outboundRows(s.mailbox.id)).toHaveLength(0);
    });
  }

  test("a suppression in another account does not apply", async () => {
    const s = await freshSender("suppressed-elsewhere");
    const stranger = await makeAccount(o.ctx);
    await addSuppression(o.ctx.sql, { accountId: stranger.accountId, address: "sam@example.org", reason: "bounce" });
    expect((await s.send({ to: "sam@example.org" })).status).toBe(201);
  });
});

describe("the relay's answer", () => {
  test("550 to the message data: 400 retryable false, nothing stored", async () => {
    const s = await freshSender("relay-550-data");
    o.sink.mode = "reject550";
    const response = await s.send({ to: "alice@example.org" });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body).sort()).toEqual(["error", "retryable"]);
    expect(response.body.retryable).toBe(false);
    expect(response.body.error).toMatch(/550/);
    expect(await outboundRows(s.mailbox.id)).toHaveLength(0);
    const list = await o.ctx.request("GET", `/api/v1/messages?mailbox_id=${s.mailbox.id}`, { key: s.key });
    expect(list.body.messages).toEqual([]);
  });

  test("550 to RCPT TO: 400 retryable false", async () => {
    const s = await freshSender("relay-550-rcpt");
    o.sink.mode = "reject-rcpt-550";
    const response = await s.send({ to: "alice@example.org" });
    expect(response.status).toBe(400);
    expect(response.body.retryable).toBe(false);
    expect(response.body.error).toMatch(/550/);
    expect(await outboundRows(s.mailbox.id)).toHaveLength(0);
  });

  test("451 to the message data: 502 retryable true, nothing stored", async () => {
    const s = await freshSender("relay-451-data");
    o.sink.mode = "defer451";
    const response = await s.send({ to: "alice@example.org" });
    expect(response.status).toBe(502);
    expect(Object.keys(response.body).sort()).toEqual(["error", "retryable"]);
    expect(response.body.retryable).toBe(true);
    expect(await outboundRows(s.mailbox.id)).toHaveLength(0);
  });

  test("451 to RCPT TO: 502 retryable true", async () => {
    const s = await freshSender("relay-451-rcpt");
    o.sink.mode = "defer-rcpt-451";
    const response = await s.send({ to: "alice@example.org" });
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ retryable: true });
    expect(response.body.code).toBeUndefined();
  });

  test("connection dropped after the message data: 502 delivery_outcome_unknown, held back from reading", async () => {
    const s = await freshSender("relay-drop");
    o.sink.mode = "drop-after-data";
    const before = o.sink.messages.length;
    const response = await s.send({ to: "alice@example.org" });
    expect(response.status).toBe(502);
    expect(Object.keys(response.body).sort()).toEqual(["code", "error", "retryable"]);
    expect(response.body.code).toBe("delivery_outcome_unknown");
    expect(typeof response.body.retryable).toBe("boolean");
    // The relay did get it: exactly the ambiguity the code reports.
    expect(o.sink.messages.length).toBe(before + 1);
    const rows = await outboundRows(s.mailbox.id);
    expect(rows.map((r) => r.delivery_status)).toEqual(["unknown"]);
    const list = await o.ctx.request("GET", `/api/v1/messages?mailbox_id=${s.mailbox.id}`, { key: s.key });
    expect(list.body.messages).toEqual([]);
  });

  test("a relay that refuses connections: 502 retryable true", async () => {
    const ctx = await makeTestContext({
      DELIVERY_TRANSPORT: "smtp",
      SMTP_RELAY_URL: `smtp://127.0.0.1:${await closedPort()}`,
      DELIVERY_TIMEOUT_MS: "2000",
    });
    try {
      const account = await makeAccount(ctx);
      const mailbox = await makeMailbox(ctx, account, "refused");
      const response = await ctx.request("POST", "/api/v1/send", {
        key: account.key,
        body: { mailbox_id: mailbox.id, to: "alice@example.org", text: "hi" },
      });
      expect(response.status).toBe(502);
      expect(Object.keys(response.body).sort()).toEqual(["error", "retryable"]);
      expect(response.body.retryable).toBe(true);
      const [row] = await ctx.sql`select count(*)::int as n from messages where direction = 'out'`;
      expect(row!.n).toBe(0);
    } finally {
      await ctx.close();
    }
  });
});

describe("the order of checks (docs/api.md)", () => {
  test("a blocked recipient on a require_approval mailbox is 403, and no draft is queued", async () => {
    const s = await freshSender("order-block-approval");
    await updateMailboxSettings(o.ctx.sql, s, s.mailbox.id, { requireApproval: true });
    await addSendListEntry(o.ctx.sql, { accountId: s.accountId, kind: "block", pattern: "blocked@example.org" });
    const response = await s.send({ to: "blocked@example.org" });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe("send_blocked_by_list");
    const [row] = await o.ctx.sql`select count(*)::int as n from drafts where mailbox_id = ${s.mailbox.id}`;
    expect(row!.n).toBe(0);
  });

  test("a suppressed recipient on a require_approval mailbox is 422, and no draft is queued", async () => {
    const s = await freshSender("order-suppressed-approval");
    await updateMailboxSettings(o.ctx.sql, s, s.mailbox.id, { requireApproval: true });
    await addSuppression(o.ctx.sql, { accountId: s.accountId, address: "gone@example.org", reason: "bounce" });
    expect((await s.send({ to: "gone@example.org" })).status).toBe(422);
    const [row] = await o.ctx.sql`select count(*)::int as n from drafts where mailbox_id = ${s.mailbox.id}`;
    expect(row!.n).toBe(0);
  });

  test("a suppressed recipient with exhausted quota is 422, not 402", async () => {
    const s = await freshSender("order-suppressed-quota");
    await updateAccount(o.ctx.sql, s.accountId, { monthlySendQuota: 0 });
    await addSuppression(o.ctx.sql, { accountId: s.accountId, address: "gone@example.org", reason: "complaint" });
    expect((await s.send({ to: "gone@example.org" })).status).toBe(422);
  });

  test("a blocked and suppressed recipient is 403 (lists before suppressions)", async () => {
    const s = await freshSender("order-block-suppressed");
    await addSendListEntry(o.ctx.sql, { accountId: s.accountId, kind: "block", pattern: "both@example.org" });
    await addSuppression(o.ctx.sql, { accountId: s.accountId, address: "both@example.org", reason: "bounce" });
    expect((await s.send({ to: "both@example.org" })).status).toBe(403);
  });

  test("require_approval with exhausted quota is 202 (approval before quota)", async () => {
    const s = await freshSender("order-approval-quota");
    await updateMailboxSettings(o.ctx.sql, s, s.mailbox.id, { requireApproval: true });
    await updateAccount(o.ctx.sql, s.accountId, { monthlySendQuota: 0 });
    const response = await s.send({ to: "alice@example.org" });
    expect(response.status).toBe(202);
    expect(response.body.status).toBe("pending_approval");
  });

  test("a completed client_id replays 200 even after its recipient is blocked (idempotency before lists)", async () => {
    const s = await freshSender("order-replay-block");
    const first = await s.send({ to: "later-blocked@example.org", client_id: "keep" });
    expect(first.status).toBe(201);
    await addSendListEntry(o.ctx.sql, { accountId: s.accountId, kind: "block", pattern: "later-blocked@example.org" });
    const replay = await s.send({ to: "later-blocked@example.org", client_id: "keep" });
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
  });

  test("a policy refusal is not stored for its client_id: the retry is evaluated again", async () => {
    const s = await freshSender("order-refusal-retry");
    const entry = await addSendListEntry(o.ctx.sql, { accountId: s.accountId, kind: "block", pattern: "tmp@example.org" });
    expect((await s.send({ to: "tmp@example.org", client_id: "r" })).status).toBe(403);
    await o.ctx.sql`delete from send_list_entries where id = ${entry.id}`;
    expect((await s.send({ to: "tmp@example.org", client_id: "r" })).status).toBe(201);
  });

  test("the mailbox 404 comes before the reply's original 404", async () => {
    const response = await o.send({ mailbox_id: "mbx_doesnotexist", reply_to_message_id: "msg_doesnotexist", text: "re" });
    expect(response.body).toEqual({ error: "not found" });
  });
});
