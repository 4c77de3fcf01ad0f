// GET /api/v1/messages and GET /api/v1/messages/{id} refusing what they cannot serve: the query
// rules (mailbox_id required, limit an integer >= 1, no unknown parameters, a cursor of this
// listing), missing or unknown keys, and ids that name no message.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type MessagesWorld, makeMessagesWorld } from "../support/messages.ts";

let w: MessagesWorld;
let messageId: string;

const NOT_FOUND = '{"error":"message not found"}';

beforeAll(async () => {
  w = await makeMessagesWorld();
  messageId = await w.receive(w.inbox, { subject: "Only one" });
});

afterAll(async () => {
  await w.ctx.close();
});

describe("GET /api/v1/messages: 400 on a bad query", () => {
  const cases: [string, () => string, string][] = [
    ["mailbox_id missing", () => "", "mailbox_id is required"],
    ["mailbox_id missing, limit given", () => "?limit=5", "mailbox_id is required"],
    ["mailbox_id empty", () => "?mailbox_id=", "mailbox_id must be at least 1 character"],
    ["limit 0", () => `?mailbox_id=${w.inbox.id}&limit=0`, "limit must be an integer >= 1"],
    ["limit negative", () => `?mailbox_id=${w.inbox.id}&limit=-1`, "limit must be an integer >= 1"],
    ["limit not a number", () => `?mailbox_id=${w.inbox.id}&limit=abc`, "limit must be an integer >= 1"],
    ["limit fractional", () => `?mailbox_id=${w.inbox.id}&limit=1.5`, "limit must be an integer >= 1"],
    ["unknown parameter", () => `?mailbox_id=${w.inbox.id}&bogus=1`, "unknown query parameter 'bogus'"],
    ["cursor not of this listing", () => `?mailbox_id=${w.inbox.id}&cursor=xyz`, "cursor is not a valid cursor for this listing"],
  ];
  for (const [name, query, error] of cases) {
    test(name, async () => {
      const response = await w.list(w.owner.key, query());
      expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: { error } });
    });
  }
});

describe("401 without a valid key", () => {
  test("no key: missing bearer token, on the list and on a message", async () => {
    for (const response of [await w.list(null, `?mailbox_id=${w.inbox.id}`), await w.get(null, messageId)]) {
      expect({ status: response.status, body: response.body }).toEqual({ status: 401, body: { error: "missing bearer token" } });
    }
  });

  test("an unknown key: invalid api key, on the list and on a message", async () => {
    for (const response of [await w.list("sk_unknown", `?mailbox_id=${w.inbox.id}`), await w.get("sk_unknown", messageId)]) {
      expect({ status: response.status, body: response.body }).toEqual({ status: 401, body: { error: "invalid api key" } });
    }
  });
});

describe("GET /api/v1/messages/{id}: 404 for an id that names no message", () => {
  for (const id of ["msg_doesnotexist", "x", "\u0000", "msg_" + "a".repeat(300), "../messages"]) {
    test(JSON.stringify(id.length > 40 ? `${id.slice(0, 12)}… (${id.length} chars)` : id), async () => {
      const response = await w.get(w.owner.key, id);
      expect(response.status).toBe(404);
      expect(response.text).toBe(NOT_FOUND);
    });
  }

  test("the mailbox's own message is found, so the 404s above are about the id", async () => {
    expect((await w.get(w.owner.key, messageId)).status).toBe(200);
  });
});

describe("GET /api/v1/messages: a mailbox that is not there", () => {
  test("an unknown mailbox_id lists nothing (200, empty), it is not an error", async () => {
    const response = await w.list(w.owner.key, "?mailbox_id=mbx_doesnotexist");
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { messages: [] } });
  });
});
