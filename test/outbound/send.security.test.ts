// Send and drafts under hostile callers: keys bound to another mailbox, keys without can_send or
// can_read, a bootstrap key, ids of other tenants (one 404 for all), and header or SMTP
// injection attempts that must never reach the relay.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Fixture, makeAccount, makeKey, makeMailbox } from "../support/context.ts";
import { deliverInbound, type Outbound, parseMail, rawHeader, startOutbound } from "../support/outbound.ts";

// Subprocesses, the worker and a loaded CI machine need more than the default 5 s.
setDefaultTimeout(30_000);

let o: Outbound;
let sibling: { id: string; address: string };
let stranger: Fixture;
let strangerBox: { id: string; address: string };
let boundKey: string;
let noSendKey: string;
let noReadKey: string;
let bootstrapKey: string;
let mcpKey: string;

const DIFFERENT_MAILBOX = { error: "this api key is scoped to a different mailbox", code: "key_scope" };
const CANNOT_SEND = { error: "this api key cannot send", code: "key_scope" };
const CANNOT_READ = { error: "this api key cannot read messages", code: "key_scope" };

beforeAll(async () => {
  o = await startOutbound();
  sibling = await makeMailbox(o.ctx, o.owner, "sibling");
  stranger = await makeAccount(o.ctx);
  strangerBox = await makeMailbox(o.ctx, stranger, "stranger");
  const accountId = o.owner.accountId;
  boundKey = await makeKey(o.ctx, { accountId, scope: "api", mailboxId: o.mailbox.id });
  noSendKey = await makeKey(o.ctx, { accountId, scope: "api", canSend: false });
  noReadKey = await makeKey(o.ctx, { accountId, scope: "api", canRead: false });
  bootstrapKey = await makeKey(o.ctx, { accountId, scope: "bootstrap" });
  mcpKey = await makeKey(o.ctx, { accountId, scope: "mcp" });
});

afterAll(async () => {
  await o.close();
});

const call = (key: string | null, method: string, path: string, body?: unknown) => o.ctx.request(method, `/api/v1${path}`, { key, body });
const sendBody = (mailboxId: string, extra: Record<string, unknown> = {}) => ({
  mailbox_id: mailboxId,
  to: "alice@example.org",
  text: "Hi",
  ...extra,
});

async function draftIn(mailboxId: string, key = o.owner.key): Promise<string> {
  const response = await call(key, "POST", "/drafts", sendBody(mailboxId));
  expect(response.status).toBe(201);
  return response.body.id;
}

describe("a key bound to one mailbox", () => {
  test("sending from another mailbox is 403 key_scope, whatever that mailbox is", async () => {
    const before = o.sink.messages.length;
    for (const mailboxId of [sibling.id, strangerBox.id, "mbx_doesnotexist"]) {
      const response = await o.send(sendBody(mailboxId), boundKey);
      expect(response.status).toBe(403);
      expect(response.body).toEqual(DIFFERENT_MAILBOX);
      const draft = await call(boundKey, "POST", "/drafts", sendBody(mailboxId));
      expect(draft.status).toBe(403);
      expect(draft.body).toEqual(DIFFERENT_MAILBOX);
    }
    expect(o.sink.messages.length).toBe(before);
    expect((await o.send(sendBody(o.mailbox.id), boundKey)).status).toBe(201);
  });

  test("listing another mailbox's drafts is 403 key_scope", async () => {
    const response = await call(boundKey, "GET", `/drafts?mailbox_id=${sibling.id}`);
    expect(response.status).toBe(403);
    expect(response.body).toEqual(DIFFERENT_MAILBOX);
  });

  test("another mailbox's draft is the one 404 for every draft route, and stays untouched", async () => {
    const theirs = await draftIn(sibling.id);
    const missing = await call(boundKey, "GET", "/drafts/drf_doesnotexist");
    expect(missing.status).toBe(404);
    for (const [method, path] of [
      ["GET", `/drafts/${theirs}`],
      ["PATCH", `/drafts/${theirs}`],
      ["DELETE", `/drafts/${theirs}`],
      ["POST", `/drafts/${theirs}/send`],
    ] as const) {
      const response = await call(boundKey, method, path, method === "PATCH" ? { text: "hijacked" } : undefined);
      expect(response.status).toBe(404);
      expect(response.text).toBe(missing.text);
    }
    const still = await call(o.owner.key, "GET", `/drafts/${theirs}`);
    expect(still.body).toMatchObject({ status: "draft", text: "Hi" });
  });

  test("replying to a message of another mailbox is 404 message not found", async () => {
    const theirs = await deliverInbound(o.ctx, sibling.id, { from: "x@example.org" });
    const response = await o.send({ mailbox_id: o.mailbox.id, reply_to_message_id: theirs, text: "re" }, boundKey);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: "message not found" });
  });
});

describe("capabilities", () => {
  test("can_send false: 403 on send and on every draft write; reading still works", async () => {
    const mine = await draftIn(o.mailbox.id);
    const before = o.sink.messages.length;
    for (const [method, path, body] of [
      ["POST", "/send", sendBody(o.mailbox.id)],
      ["POST", "/drafts", sendBody(o.mailbox.id)],
      ["PATCH", `/drafts/${mine}`, { text: "edited" }],
      ["DELETE", `/drafts/${mine}`, undefined],
      ["POST", `/drafts/${mine}/send`, undefined],
    ] as const) {
      const response = await call(noSendKey, method, path, body);
      expect(response.status).toBe(403);
      expect(response.body).toEqual(CANNOT_SEND);
    }
    expect(o.sink.messages.length).toBe(before);
    expect((await call(noSendKey, "GET", `/drafts/${mine}`)).body).toMatchObject({ status: "draft", text: "Hi" });
    expect((await call(noSendKey, "GET", `/drafts?mailbox_id=${o.mailbox.id}`)).status).toBe(200);
  });

  test("can_send false is reported before a bad body", async () => {
    const response = await call(noSendKey, "POST", "/send", { nonsense: true });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(CANNOT_SEND);
  });

  test("can_read false: 403 on draft reads; sending still works", async () => {
    const mine = await draftIn(o.mailbox.id);
    for (const path of [`/drafts?mailbox_id=${o.mailbox.id}`, `/drafts/${mine}`]) {
      const response = await call(noReadKey, "GET", path);
      expect(response.status).toBe(403);
      expect(response.body).toEqual(CANNOT_READ);
    }
    expect((await o.send(sendBody(o.mailbox.id), noReadKey)).status).toBe(201);
  });

  test("a bootstrap key may not send or touch drafts", async () => {
    const mine = await draftIn(o.mailbox.id);
    const expected = { error: "scope 'bootstrap' not permitted for this endpoint" };
    for (const [method, path, body] of [
      ["POST", "/send", sendBody(o.mailbox.id)],
      ["POST", "/drafts", sendBody(o.mailbox.id)],
      ["GET", `/drafts?mailbox_id=${o.mailbox.id}`, undefined],
      ["GET", `/drafts/${mine}`, undefined],
      ["PATCH", `/drafts/${mine}`, { text: "x" }],
      ["DELETE", `/drafts/${mine}`, undefined],
      ["POST", `/drafts/${mine}/send`, undefined],
    ] as const) {
      const response = await call(bootstrapKey, method, path, body);
      expect(response.status).toBe(403);
      expect(response.body).toEqual(expected);
    }
  });

  test("an mcp key sends like an api key", async () => {
    expect((await o.send(sendBody(o.mailbox.id), mcpKey)).status).toBe(201);
  });

  test("no key or an unknown key is 401, before the body is looked at", async () => {
    const none = await call(null, "POST", "/send", { garbage: 1 });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: "missing bearer token" });
    const unknown = await call("svc_notarealkey", "POST", "/send", sendBody(o.mailbox.id));
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: "invalid api key" });
    const drafts = await call("svc_notarealkey", "GET", "/drafts/drf_x");
    expect(drafts.status).toBe(401);
  });
});

describe("other tenants", () => {
  test("another account's draft ids are the one 404, byte-identical, and stay untouched", async () => {
    const theirs = await draftIn(strangerBox.id, stranger.key);
    const missing = await call(o.owner.key, "GET", "/drafts/drf_doesnotexist");
    expect(missing.text).toBe(JSON.stringify({ error: "draft not found" }));
    const before = o.sink.messages.length;
    for (const [method, path] of [
      ["GET", `/drafts/${theirs}`],
      ["PATCH", `/drafts/${theirs}`],
      ["DELETE", `/drafts/${theirs}`],
      ["POST", `/drafts/${theirs}/send`],
    ] as const) {
      const response = await call(o.owner.key, method, path, method === "PATCH" ? { to: "attacker@evil.example" } : undefined);
      expect(response.status).toBe(404);
      expect(response.text).toBe(missing.text);
    }
    expect(o.sink.messages.length).toBe(before);
    expect((await call(stranger.key, "GET", `/drafts/${theirs}`)).body).toMatchObject({ status: "draft", to: "alice@example.org" });
  });

  test("listing another account's mailbox shows none of its drafts", async () => {
    await draftIn(strangerBox.id, stranger.key);
    const response = await call(o.owner.key, "GET", `/drafts?mailbox_id=${strangerBox.id}`);
    // The contract lists no 404 for this route: a foreign mailbox simply has no drafts visible to us.
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ drafts: [] });
  });

  test("replying to another account's message is 404 like a missing one", async () => {
    const theirs = await deliverInbound(o.ctx, strangerBox.id, { from: "secret@example.org", subject: "Private" });
    const missing = await o.send({ mailbox_id: o.mailbox.id, reply_to_message_id: "msg_doesnotexist", text: "re" });
    const foreign = await o.send({ mailbox_id: o.mailbox.id, reply_to_message_id: theirs, text: "re" });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    const draft = await call(o.owner.key, "POST", "/drafts", { mailbox_id: o.mailbox.id, reply_to_message_id: theirs, text: "re" });
    expect(draft.status).toBe(404);
    expect(draft.text).toBe(missing.text);
  });
});

describe("injection never reaches the relay", () => {
  const injected = [
    { to: "alice@example.org\r\nBcc: eve@evil.example" },
    { to: "alice@example.org\nBcc: eve@evil.example" },
    { to: '"Alice\r\nBcc: eve@evil.example" <alice@example.org>' },
    { to: "alice@example.org\u0000eve@evil.example" },
    { to: "alice@example.org, eve@evil.example" },
    { to: "alice@example.org\r\n", subject: "x" },
    { subject: "Hi\r\nBcc: eve@evil.example" },
    { subject: "Hi\nBcc: eve@evil.example" },
    { subject: "Hi\r\n\r\nInjected body" },
  ];

  for (const extra of injected) {
    test(`send and draft refuse ${JSON.stringify(extra)}`, async () => {
      const before = o.sink.messages.length;
      const response = await o.send(sendBody(o.mailbox.id, extra));
      expect(response.status).toBe(400);
      const draft = await call(o.owner.key, "POST", "/drafts", sendBody(o.mailbox.id, extra));
      expect(draft.status).toBe(400);
      expect(o.sink.messages.length).toBe(before);
    });
  }

  test("a draft edit cannot smuggle a header either", async () => {
    const mine = await draftIn(o.mailbox.id);
    for (const patch of [{ to: "alice@example.org\r\nBcc: eve@evil.example" }, { subject: "x\r\nBcc: eve@evil.example" }]) {
      expect((await call(o.owner.key, "PATCH", `/drafts/${mine}`, patch)).status).toBe(400);
    }
    const sent = await call(o.owner.key, "POST", `/drafts/${mine}/send`);
    expect(sent.status).toBe(201);
    const delivered = o.sink.messages.at(-1)!;
    expect(delivered.to).toEqual(["alice@example.org"]);
    expect(rawHeader(delivered.raw, "Bcc")).toBeNull();
  });

  test("a display name or encoded word cannot add recipients or headers", async () => {
    const before = o.sink.messages.length;
    for (const to of ['"Doe, John" <john@example.org>', "=?utf-8?Q?Eve=0D=0ABcc=3A_eve=40evil=2Eexample?= <john@example.org>"]) {
      const response = await o.send(sendBody(o.mailbox.id, { to, subject: "=?utf-8?Q?x=0D=0ABcc:_eve@evil.example?=" }));
      expect(response.status).toBe(201);
      const delivered = o.sink.messages.at(-1)!;
      expect(delivered.to).toEqual(["john@example.org"]);
      expect(rawHeader(delivered.raw, "Bcc")).toBeNull();
      expect(rawHeader(delivered.raw, "To")).toBe("john@example.org");
    }
    expect(o.sink.messages.length).toBe(before + 2);
  });

  test("SMTP commands in the body stay in the body (no smuggled second message)", async () => {
    const before = o.sink.messages.length;
    const text =
      "Hello\r\n.\r\nMAIL FROM:<ceo@example.org>\r\nRCPT TO:<victim@example.org>\r\nDATA\r\nSubject: smuggled\r\n\r\nevil\r\n.\r\n\n.\nQUIT\r\n";
    const response = await o.send(sendBody(o.mailbox.id, { text }));
    expect(response.status).toBe(201);
    expect(o.sink.messages.length).toBe(before + 1);
    const delivered = o.sink.messages.at(-1)!;
    expect(delivered.to).toEqual(["alice@example.org"]);
    const mail = await parseMail(delivered.raw);
    expect(mail.text).toContain("RCPT TO:<victim@example.org>");
    expect(mail.subject).not.toBe("smuggled");
  });

  test("control characters and bidi overrides are 400 in a subject or text, on send, draft create and edit", async () => {
    const before = o.sink.messages.length;
    const refused: [Record<string, string>, string][] = [
      [{ subject: "Invoice \u202Efdp.exe" }, "subject must not contain control characters"],
      [{ subject: "ring\u0007" }, "subject must not contain control characters"],
      [{ text: "see invoice\u202Dattached" }, "text must not contain control characters"],
      [{ text: "escape \u001b[31m red" }, "text must not contain control characters"],
    ];
    const mine = await draftIn(o.mailbox.id);
    for (const [extra, error] of refused) {
      expect(await o.send(sendBody(o.mailbox.id, extra))).toMatchObject({ status: 400, body: { error } });
      expect(await call(o.owner.key, "POST", "/drafts", sendBody(o.mailbox.id, extra))).toMatchObject({ status: 400, body: { error } });
      expect(await call(o.owner.key, "PATCH", `/drafts/${mine}`, extra)).toMatchObject({ status: 400, body: { error } });
    }
    expect(o.sink.messages.length).toBe(before);
    // Tabs, line breaks in the text and right-to-left text without overrides are ordinary mail.
    const fine = await o.send(
      sendBody(o.mailbox.id, { subject: "Q3\tplan \u05e9\u05dc\u05d5\u05dd", text: "line one\r\nline two\n\tindented" }),
    );
    expect(fine.status).toBe(201);
  });

  test("a Unicode line separator in the subject is encoded, not a header break", async () => {
    const response = await o.send(sendBody(o.mailbox.id, { subject: "Hi\u2028Bcc: eve@evil.example\u0085x" }));
    expect(response.status).toBe(201);
    const delivered = o.sink.messages.at(-1)!;
    expect(rawHeader(delivered.raw, "Bcc")).toBeNull();
    expect(delivered.to).toEqual(["alice@example.org"]);
    expect((await parseMail(delivered.raw)).subject).toBe("Hi\u2028Bcc: eve@evil.example\u0085x");
  });
});
