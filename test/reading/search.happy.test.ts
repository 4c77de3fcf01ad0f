// GET /api/v1/search, the main flow with its exact shape: a result has exactly its fields, with the
// stored message's values and a highlighted snippet. search.test.ts covers ranking, the query
// syntax, filters and paging.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { type MessagesWorld, makeMessagesWorld } from "../support/messages.ts";

let w: MessagesWorld;
let messageId: string;

const search = (q: string, mailboxId = w.inbox.id) =>
  w.ctx.request("GET", `/api/v1/search?${new URLSearchParams({ mailbox_id: mailboxId, q })}`, { key: w.owner.key });

beforeAll(async () => {
  w = await makeMessagesWorld();
  messageId = await w.receive(w.inbox, { subject: "Quarterly zanzibar", text: "The zanzibar figures are in.", from: "cfo@example.org" });
  await screenMessage(w.ctx.svc, messageId);
  // Screening a message on a loaded machine can outlast the default hook time.
}, 120_000);

afterAll(async () => {
  await w.ctx.close();
});

describe("a search that matches", () => {
  test("a result has exactly its fields, with the stored message's values", async () => {
    const response = await search("zanzibar");
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["next_cursor", "results"]);
    expect(response.body.results).toHaveLength(1);
    const [result] = response.body.results;
    expect(Object.keys(result).sort()).toEqual([
      "comprehension",
      "created_at",
      "direction",
      "from_addr",
      "has_attachments",
      "id",
      "rank",
      "snippet",
      "subject",
      "thread_id",
      "to_addr",
    ]);
    const message = (await w.get(w.owner.key, messageId)).body;
    expect(result).toMatchObject({
      id: messageId,
      thread_id: message.thread_id,
      direction: "in",
      from_addr: "cfo@example.org",
      to_addr: w.inbox.address,
      subject: "Quarterly zanzibar",
      created_at: message.created_at,
      has_attachments: false,
    });
    expect(result.comprehension).toEqual({
      status: message.comprehension.status,
      classification: message.comprehension.classification.label,
    });
    expect(result.rank).toBeGreaterThan(0);
    expect(result.snippet).toContain("**zanzibar**");
    expect(response.body.next_cursor).toBeNull();
  });

  test("a word no message has finds nothing", async () => {
    expect((await search("xylophonequasar")).body).toEqual({ results: [], next_cursor: null });
  });

  test("another mailbox of the account does not find this mailbox's message", async () => {
    expect((await search("zanzibar", w.other.id)).body).toEqual({ results: [], next_cursor: null });
  });
});
