// GET /api/v1/threads and /threads/{id}, the main flows with their exact shapes: a list item has
// exactly its eight fields with the stored values, a thread exactly its fields and its messages
// exactly theirs. threads.test.ts covers ordering, paging and a conversation across send and reply.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type MessagesWorld, makeMessagesWorld } from "../support/messages.ts";

let w: MessagesWorld;
let messageId: string;
let threadId: string;

const get = (path: string) => w.ctx.request("GET", `/api/v1${path}`, { key: w.owner.key });

beforeAll(async () => {
  w = await makeMessagesWorld();
  messageId = await w.receive(w.inbox, { subject: "Quarterly figures", text: "The figures are in.", from: "cfo@example.org" });
  threadId = (await w.get(w.owner.key, messageId)).body.thread_id;
});

afterAll(async () => {
  await w.ctx.close();
});

describe("the thread list", () => {
  test("an item has exactly its fields, with the stored message's values", async () => {
    const response = await get(`/threads?mailbox_id=${w.inbox.id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["next_cursor", "threads"]);
    expect(response.body.threads).toHaveLength(1);
    const [item] = response.body.threads;
    expect(Object.keys(item).sort()).toEqual([
      "id",
      "last_message_at",
      "last_message_id",
      "mailbox_id",
      "message_count",
      "participants",
      "snippet",
      "subject",
    ]);
    const message = (await w.get(w.owner.key, messageId)).body;
    expect(item).toEqual({
      id: threadId,
      mailbox_id: w.inbox.id,
      subject: "Quarterly figures",
      participants: ["cfo@example.org"],
      message_count: 1,
      last_message_id: messageId,
      last_message_at: message.created_at,
      snippet: "The figures are in.",
    });
    expect(response.body.next_cursor).toBeNull();
  });

  test("another mailbox of the account lists its own threads only", async () => {
    const other = await get(`/threads?mailbox_id=${w.other.id}`);
    expect(other.body).toEqual({ threads: [], next_cursor: null });
  });
});

describe("one thread", () => {
  test("has exactly its fields, and its message exactly the message fields", async () => {
    const response = await get(`/threads/${threadId}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual([
      "has_more",
      "id",
      "last_message_at",
      "mailbox_id",
      "message_count",
      "messages",
      "participants",
      "subject",
    ]);
    expect(response.body).toMatchObject({
      id: threadId,
      mailbox_id: w.inbox.id,
      subject: "Quarterly figures",
      participants: ["cfo@example.org"],
      message_count: 1,
      has_more: false,
    });
    expect(response.body.messages).toHaveLength(1);
    const [message] = response.body.messages;
    expect(Object.keys(message).sort()).toEqual([
      "attachments",
      "body_clean",
      "comprehension",
      "created_at",
      "direction",
      "from_addr",
      "id",
      "in_reply_to",
      "reply_text",
      "rfc_message_id",
      "spam_risk",
      "subject",
      "to_addr",
      "truncated",
      "virus_risk",
    ]);
    expect(message).toMatchObject({ id: messageId, direction: "in", from_addr: "cfo@example.org", to_addr: w.inbox.address });
    expect(message.body_clean).toContain("The figures are in.");
  });

  test("its labels start as unread", async () => {
    const response = await get(`/threads/${threadId}/labels`);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { labels: ["unread"] } });
  });
});
