// GET /api/v1/search under hostile callers, beyond what search.test.ts already checks: the same word
// in two accounts' mail never crosses over, a foreign or unknown mailbox answers alike, bound keys
// find only their own mailbox's mail, and keys without can_read, bootstrap keys and no key are refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { makeKey } from "../support/context.ts";
import { type MessagesWorld, makeMessagesWorld } from "../support/messages.ts";

let w: MessagesWorld;
let inboxMessage: string;
let otherMessage: string;
let foreignMessage: string;
let boundKey: string; // the owner's key, bound to w.other
let noReadKey: string;

const WORD = "zanzibarquartz"; // one word every mailbox's mail carries
const CANNOT_READ = { error: "this api key cannot read messages", code: "key_scope" };
const DIFFERENT_MAILBOX = { error: "this api key is scoped to a different mailbox", code: "key_scope" };

const search = (key: string | null, mailboxId: string, q = WORD) =>
  w.ctx.request("GET", `/api/v1/search?${new URLSearchParams({ mailbox_id: mailboxId, q })}`, { key });
const resultIds = (response: { body: { results: { id: string }[] } }) => response.body.results.map((r) => r.id);

async function receiveScreened(mailbox: MessagesWorld["inbox"], subject: string): Promise<string> {
  const id = await w.receive(mailbox, { subject, text: `The ${WORD} report is attached.` });
  await screenMessage(w.ctx.svc, id);
  return id;
}

beforeAll(async () => {
  w = await makeMessagesWorld();
  inboxMessage = await receiveScreened(w.inbox, "Inbox report");
  otherMessage = await receiveScreened(w.other, "Other report");
  foreignMessage = await receiveScreened(w.foreign, "Stranger report");
  boundKey = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "api", mailboxId: w.other.id });
  noReadKey = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "api", canRead: false });
  // Screening three messages on a loaded machine can outlast the default hook time.
}, 120_000);

afterAll(async () => {
  await w.ctx.close();
});

describe("two accounts with the same word in their mail", () => {
  test("each finds only its own message", async () => {
    const own = await search(w.owner.key, w.inbox.id);
    expect(own.status).toBe(200);
    expect(resultIds(own)).toEqual([inboxMessage]);
    const theirs = await search(w.stranger.key, w.foreign.id);
    expect(resultIds(theirs)).toEqual([foreignMessage]);
  });

  test("searching the stranger's mailbox answers exactly as an unknown mailbox does", async () => {
    const foreign = await search(w.owner.key, w.foreign.id);
    const unknown = await search(w.owner.key, "mbx_doesnotexist");
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.text).toBe(unknown.text);
    expect(foreign.text).not.toContain(foreignMessage);
    expect(foreign.text).not.toContain("Stranger report");
  });

  test("the other way round: the stranger searching the owner's mailboxes finds nothing", async () => {
    for (const mailboxId of [w.inbox.id, w.other.id]) {
      const response = await search(w.stranger.key, mailboxId);
      expect(response.text).toBe((await search(w.stranger.key, "mbx_doesnotexist")).text);
      expect(response.text).not.toContain(WORD);
    }
  });
});

describe("a key bound to one mailbox", () => {
  test("finds its own mailbox's message and nothing of the account's other mailbox", async () => {
    const response = await search(boundKey, w.other.id);
    expect(response.status).toBe(200);
    expect(resultIds(response)).toEqual([otherMessage]);
  });

  test("searching another mailbox of its account, a foreign one or an unknown one is the same 403", async () => {
    for (const mailboxId of [w.inbox.id, w.foreign.id, "mbx_doesnotexist"]) {
      const response = await search(boundKey, mailboxId);
      expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: DIFFERENT_MAILBOX });
    }
  });
});

describe("keys that may not search", () => {
  test("can_read false is 403 key_scope with no results in the body", async () => {
    const response = await search(noReadKey, w.inbox.id);
    expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: CANNOT_READ });
  });

  test("a bootstrap key is refused", async () => {
    const key = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "bootstrap" });
    const response = await search(key, w.inbox.id);
    expect({ status: response.status, body: response.body }).toEqual({
      status: 403,
      body: { error: "scope 'bootstrap' not permitted for this endpoint" },
    });
  });

  test("an MCP key searches like an API key, under the same account boundary", async () => {
    const key = await makeKey(w.ctx, { accountId: w.owner.accountId, scope: "mcp" });
    expect(resultIds(await search(key, w.inbox.id))).toEqual([inboxMessage]);
    expect((await search(key, w.foreign.id)).text).not.toContain(foreignMessage);
  });

  test("no key is 401 missing bearer token; an unknown key 401 invalid api key", async () => {
    const none = await search(null, w.inbox.id);
    expect({ status: none.status, body: none.body }).toEqual({ status: 401, body: { error: "missing bearer token" } });
    const wrong = await search("svc_notarealkeyatall", w.inbox.id);
    expect({ status: wrong.status, body: wrong.body }).toEqual({ status: 401, body: { error: "invalid api key" } });
  });
});
