// GET /api/v1/messages and GET /api/v1/messages/{id} under hostile callers: keys bound to one
// mailbox, keys without can_read, account-plane keys, and ids of another account or mailbox,
// which must answer exactly as a missing id does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeKey } from "../support/context.ts";
import { type MessagesWorld, makeMessagesWorld } from "../support/messages.ts";

let w: MessagesWorld;
let inboxMessage: string;
let otherMessage: string;
let foreignMessage: string;
let boundKey: string; // bound to w.other
let noReadKey: string;
let strangerBoundKey: string; // the stranger's key, bound to w.foreign

const NOT_FOUND = '{"error":"message not found"}';
const DIFFERENT_MAILBOX = { error: "this api key is scoped to a different mailbox", code: "key_scope" };
const CANNOT_READ = { error: "this api key cannot read messages", code: "key_scope" };

beforeAll(async () => {
  w = await makeMessagesWorld();
  inboxMessage = await w.receive(w.inbox, { subject: "For the reader" });
  otherMessage = await w.receive(w.other, { subject: "For the other mailbox" });
  foreignMessage = await w.receive(w.foreign, { subject: "For the stranger", text: "secret of the stranger" });
  boundKey = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "api", mailboxId: w.other.id });
  noReadKey = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "api", canRead: false });
  strangerBoundKey = await makeKey(w.ctx, { accountId: w.stranger.accountId, scope: "api", mailboxId: w.foreign.id });
});

afterAll(async () => {
  await w.ctx.close();
});

const ids = (response: { body: { messages: { id: string }[] } }) => response.body.messages.map((m) => m.id);

describe("another account's mail", () => {
  test("its message id is the same 404 as a missing id, byte for byte", async () => {
    const missing = await w.get(w.owner.key, "msg_doesnotexist");
    const foreign = await w.get(w.owner.key, foreignMessage);
    expect(missing.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(NOT_FOUND);
    expect(foreign.text).toBe(missing.text);
    expect(foreign.headers.get("content-type")).toBe(missing.headers.get("content-type"));
  });

  test("its mailbox lists as empty, as an unknown mailbox does", async () => {
    const foreign = await w.list(w.owner.key, `?mailbox_id=${w.foreign.id}`);
    const unknown = await w.list(w.owner.key, "?mailbox_id=mbx_doesnotexist");
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 200, body: { messages: [] } });
    expect(foreign.text).toBe(unknown.text);
  });

  test("the other way round too: the stranger cannot read the owner's mail", async () => {
    for (const key of [w.stranger.key, strangerBoundKey]) {
      const response = await w.get(key, inboxMessage);
      expect(response.status).toBe(404);
      expect(response.text).toBe(NOT_FOUND);
    }
    const listed = await w.list(w.stranger.key, `?mailbox_id=${w.inbox.id}`);
    expect(listed.body).toEqual({ messages: [] });
  });

  test("the stranger still reads their own mail (the 404s are about ownership, not the id)", async () => {
    const own = await w.get(w.stranger.key, foreignMessage);
    expect(own.status).toBe(200);
    expect(own.body.body_clean).toContain("secret of the stranger");
    expect(ids(await w.list(strangerBoundKey, `?mailbox_id=${w.foreign.id}`))).toEqual([foreignMessage]);
  });
});

describe("a key bound to one mailbox", () => {
  test("lists its own mailbox", async () => {
    const response = await w.list(boundKey, `?mailbox_id=${w.other.id}`);
    expect(response.status).toBe(200);
    expect(ids(response)).toEqual([otherMessage]);
  });

  test("listing another mailbox of the same account is 403 key_scope", async () => {
    const response = await w.list(boundKey, `?mailbox_id=${w.inbox.id}`);
    expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: DIFFERENT_MAILBOX });
  });

  test("listing another account's mailbox or an unknown one is the same 403", async () => {
    for (const mailboxId of [w.foreign.id, "mbx_doesnotexist"]) {
      const response = await w.list(boundKey, `?mailbox_id=${mailboxId}`);
      expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: DIFFERENT_MAILBOX });
    }
  });

  test("reads a message of its own mailbox", async () => {
    const response = await w.get(boundKey, otherMessage);
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(otherMessage);
  });

  test("a message of another mailbox, of its account or not, is the 404 of a missing id", async () => {
    const missing = await w.get(boundKey, "msg_doesnotexist");
    for (const id of [inboxMessage, foreignMessage]) {
      const response = await w.get(boundKey, id);
      expect(response.status).toBe(404);
      expect(response.text).toBe(NOT_FOUND);
      expect(response.text).toBe(missing.text);
    }
  });
});

describe("keys that may not read", () => {
  test("can_read false: 403 on the list and on a message, even its own account's", async () => {
    for (const response of [await w.list(noReadKey, `?mailbox_id=${w.inbox.id}`), await w.get(noReadKey, inboxMessage)]) {
      expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: CANNOT_READ });
    }
  });

  test("a bootstrap key may not read: 403 on the list and on a message, no mail in the body", async () => {
    const key = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "bootstrap" });
    for (const response of [await w.list(key, `?mailbox_id=${w.inbox.id}`), await w.get(key, inboxMessage)]) {
      expect({ status: response.status, body: response.body }).toEqual({
        status: 403,
        body: { error: "scope 'bootstrap' not permitted for this endpoint" },
      });
    }
  });

  test("an MCP key reads like an API key, under the same account boundary", async () => {
    const key = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "mcp" });
    expect((await w.get(key, inboxMessage)).status).toBe(200);
    expect(ids(await w.list(key, `?mailbox_id=${w.inbox.id}`))).toEqual([inboxMessage]);
    const foreign = await w.get(key, foreignMessage);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(NOT_FOUND);
  });
});
