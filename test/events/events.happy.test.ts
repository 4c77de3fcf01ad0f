// GET /api/v1/events, the main flows not covered by events.test.ts: the exact shape of a page and
// of each item, and the `types` filter (one type, a list, spaces, repeats, empty), which narrows
// what is returned without changing the order or the cursors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { appendTestEvent } from "../support/events.ts";

let ctx: TestContext;
let account: Fixture;
let mailbox: { id: string };
const appended: { id: string; cursor: string; messageId: string }[] = [];

const poll = async (query: string) => {
  const response = await ctx.request("GET", `/api/v1/events?after=0${query}`, { key: account.key });
  expect(response.status).toBe(200);
  return response.body as { events: { cursor: string; event: Record<string, unknown> }[]; next_cursor: string };
};

beforeAll(async () => {
  ctx = await makeTestContext();
  account = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, account, "happy");
  for (const subject of ["first", "second", "third"])
    appended.push(await appendTestEvent(ctx.sql, account.accountId, mailbox.id, { subject }));
});

afterAll(async () => {
  await ctx.close();
});

describe("a page of events", () => {
  test("has exactly events and next_cursor; each item exactly cursor and event; the last cursor is next_cursor", async () => {
    const page = await poll("");
    expect(Object.keys(page).sort()).toEqual(["events", "next_cursor"]);
    for (const item of page.events) expect(Object.keys(item).sort()).toEqual(["cursor", "event"]);
    expect(page.events.map((item) => item.cursor)).toEqual(appended.map((a) => a.cursor));
    expect(page.next_cursor).toBe(appended.at(-1)!.cursor);
  });

  test("each event carries its event_id, type, message, mailbox and subject as appended", async () => {
    const page = await poll("");
    expect(
      page.events.map(({ event }) => ({
        event_id: event.event_id,
        type: event.type,
        message_id: event.message_id,
        mailbox_id: event.mailbox_id,
        subject: event.subject,
      })),
    ).toEqual(
      appended.map((a, index) => ({
        event_id: a.id,
        type: "message.received",
        message_id: a.messageId,
        mailbox_id: mailbox.id,
        subject: ["first", "second", "third"][index],
      })),
    );
  });

  test("a limit pages through in order", async () => {
    const first = await poll("&limit=2");
    expect(first.events.map((item) => item.event.subject)).toEqual(["first", "second"]);
    const rest = await ctx.request("GET", `/api/v1/events?after=${first.next_cursor}`, { key: account.key });
    expect(rest.body.events.map((item: { event: { subject: string } }) => item.event.subject)).toEqual(["third"]);
  });
});

describe("the types filter", () => {
  test("a type the events have returns all of them, with the same cursors as unfiltered", async () => {
    const unfiltered = await poll("");
    const filtered = await poll("&types=message.received");
    expect(filtered.events).toEqual(unfiltered.events);
  });

  test("a type no event has returns none", async () => {
    const page = await poll("&types=message.sent");
    expect(page.events).toEqual([]);
  });

  test("a list, spaces around the names and a repeated name are one filter", async () => {
    const unfiltered = await poll("");
    for (const types of [
      "message.sent,message.received",
      encodeURIComponent(" message.received , message.bounced "),
      "message.received,message.received",
    ]) {
      const page = await poll(`&types=${types}`);
      expect({ types, cursors: page.events.map((item) => item.cursor) }).toEqual({
        types,
        cursors: unfiltered.events.map((item) => item.cursor),
      });
    }
  });

  test("an empty types= means every type", async () => {
    expect((await poll("&types=")).events).toEqual((await poll("")).events);
  });
});
