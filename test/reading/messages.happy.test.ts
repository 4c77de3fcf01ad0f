// GET /api/v1/messages and GET /api/v1/messages/{id} on the happy path: a mailbox's inbound and
// outbound mail listed newest first, the limit rules of the contract (default 50, clamped to 100),
// and the detail of each listed message.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type MessagesWorld, makeMessagesWorld } from "../support/messages.ts";

let w: MessagesWorld;
const received: string[] = []; // oldest first
let sentId: string;

beforeAll(async () => {
  w = await makeMessagesWorld();
  // 101 inbound messages, so the default and the clamp both have more than they return.
  for (let i = 0; i < 101; i++) received.push(await w.receive(w.inbox, { subject: `Note ${i}`, text: `Body ${i}` }));
  const sent = await w.ctx.request("POST", "/api/v1/send", {
    key: w.owner.key,
    body: { mailbox_id: w.inbox.id, to: "bob@example.org", subject: "Outbound", text: "Sent." },
  });
  expect(sent.status).toBe(201);
  sentId = sent.body.id;
});

afterAll(async () => {
  await w.ctx.close();
});

describe("GET /api/v1/messages", () => {
  test("lists the mailbox's inbound and outbound mail, newest first, in MessageListItem's shape", async () => {
    const response = await w.list(w.owner.key, `?mailbox_id=${w.inbox.id}&limit=3`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["messages"]);
    const ids = response.body.messages.map((m: { id: string }) => m.id);
    expect(ids).toEqual([sentId, received[100], received[99]]);
    const [outbound, inbound] = response.body.messages;
    expect(outbound).toMatchObject({ id: sentId, direction: "out", to_addr: "bob@example.org", subject: "Outbound" });
    expect(inbound).toMatchObject({ id: received[100], direction: "in", from_addr: "ana@example.org", subject: "Note 100" });
    for (const item of response.body.messages) {
      expect(typeof item.created_at).toBe("string");
      expect(Number.isNaN(Date.parse(item.created_at))).toBe(false);
      // A list item is the summary: no body fields.
      expect(item).not.toHaveProperty("body_clean");
      expect(item).not.toHaveProperty("body_raw");
    }
  });

  test("without limit it returns 50", async () => {
    const response = await w.list(w.owner.key, `?mailbox_id=${w.inbox.id}`);
    expect(response.status).toBe(200);
    expect(response.body.messages).toHaveLength(50);
    expect(response.body.messages[0].id).toBe(sentId);
  });

  test("a limit above 100 is clamped to 100", async () => {
    for (const limit of [101, 500, 1_000_000]) {
      const response = await w.list(w.owner.key, `?mailbox_id=${w.inbox.id}&limit=${limit}`);
      expect(response.status).toBe(200);
      expect(response.body.messages).toHaveLength(100);
    }
  });

  test("limit 1 and limit 100 are taken as given", async () => {
    const one = await w.list(w.owner.key, `?mailbox_id=${w.inbox.id}&limit=1`);
    expect(one.body.messages.map((m: { id: string }) => m.id)).toEqual([sentId]);
    const hundred = await w.list(w.owner.key, `?mailbox_id=${w.inbox.id}&limit=100`);
    expect(hundred.body.messages).toHaveLength(100);
    expect(new Set(hundred.body.messages.map((m: { id: string }) => m.id)).size).toBe(100);
  });

  test("an empty mailbox lists nothing", async () => {
    const response = await w.list(w.owner.key, `?mailbox_id=${w.other.id}`);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { messages: [] } });
  });
});

describe("GET /api/v1/messages/{id}", () => {
  test("an inbound message comes back in full, sanitized body included", async () => {
    const response = await w.get(w.owner.key, received[7]!);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: received[7],
      mailbox_id: w.inbox.id,
      direction: "in",
      from_addr: "ana@example.org",
      to_addr: w.inbox.address,
      subject: "Note 7",
    });
    expect(response.body.body_clean).toContain("Body 7");
    expect(Array.isArray(response.body.attachments)).toBe(true);
  });

  test("an outbound message comes back with its direction and recipient", async () => {
    const response = await w.get(w.owner.key, sentId);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: sentId,
      mailbox_id: w.inbox.id,
      direction: "out",
      to_addr: "bob@example.org",
      subject: "Outbound",
    });
  });

  test("every listed message can be read by its id", async () => {
    const listed = await w.list(w.owner.key, `?mailbox_id=${w.inbox.id}&limit=5`);
    for (const item of listed.body.messages) {
      const detail = await w.get(w.owner.key, item.id);
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({
        id: item.id,
        direction: item.direction,
        from_addr: item.from_addr,
        to_addr: item.to_addr,
        subject: item.subject,
      });
    }
  });
});
