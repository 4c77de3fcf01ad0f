// GET /api/v1/search: ranking, phrase and prefix queries, non-English words, every filter, the
// cursor, errors, and isolation between accounts and bound keys.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { RANK_WINDOW } from "../../src/core/search.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;
let stranger: Fixture;
let inbox: Mailbox;
let foreign: Mailbox;
let boundKey: string;
const ids: Record<string, string> = {};

async function receive(mailbox: Mailbox, name: string, mail: { from: string; subject: string; text: string; attachment?: string }) {
  const boundary = "b0undary";
  const lines = mail.attachment
    ? [
        `From: ${mail.from}`,
        `To: ${mailbox.address}`,
        `Subject: ${mail.subject}`,
        "MIME-Version: 1.0",
        `Content-Type: multipart/mixed; boundary=${boundary}`,
        "",
        `--${boundary}`,
        "Content-Type: text/plain",
        "",
        mail.text,
        `--${boundary}`,
        "Content-Type: text/plain; name=notes.txt",
        "Content-Disposition: attachment; filename=notes.txt",
        "",
        mail.attachment,
        `--${boundary}--`,
        "",
      ]
    : [`From: ${mail.from}`, `To: ${mailbox.address}`, `Subject: ${mail.subject}`, "", mail.text, ""];
  const [id] = await acceptInbound(ctx.svc, Buffer.from(lines.join("\r\n")), [mailbox], {
    remoteIp: null,
    helo: null,
    mailFrom: mail.from,
  });
  // Search documents are written by the worker's screening, after the 250 (sql/0020).
  await screenMessage(ctx.svc, id!);
  ids[name] = id!;
}

async function search(params: Record<string, string>, key = owner.key) {
  const query = new URLSearchParams({ mailbox_id: inbox.id, ...params });
  return ctx.request("GET", `/api/v1/search?${query}`, { key });
}
const names = (body: any) => body.results.map((r: any) => Object.keys(ids).find((name) => ids[name] === r.id));

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
  stranger = await makeAccount(ctx);
  inbox = (await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${(await makeMailbox(ctx, owner, "search")).id}`)[0]!;
  foreign = (await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${(await makeMailbox(ctx, stranger, "elsewhere")).id}`)[0]!;
  const other = await makeMailbox(ctx, owner, "bound");
  boundKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: other.id });

  await receive(inbox, "invoice", {
    from: "billing@acme.com",
    subject: "Your invoice INV-2026-0912",
    text: "Please find the invoice for March. Amount due 120 EUR.",
  });
  await receive(inbox, "mention", {
    from: "friend@example.org",
    subject: "Lunch",
    text: "Did you pay the acme invoice yet? Let's have lunch.",
  });
  await receive(inbox, "german", {
    from: "kontakt@beispiel.de",
    subject: "Überweisung erhalten",
    text: "Vielen Dank für Ihre Überweisung.",
  });
  await receive(inbox, "attached", {
    from: "ops@carrier.net",
    subject: "Shipment",
    text: "See the attached notes.",
    attachment: "pallet manifest for warehouse 7",
  });
  await receive(foreign, "theirs", { from: "billing@acme.com", subject: "Their invoice", text: "invoice for another account" });
  // Labels fixed here, whatever the classifier made of these short texts during screening.
  await ctx.sql`update messages set comprehension = '{"status":"complete","classification":{"label":"personal"}}' where mailbox_id = ${inbox.id}`;
  await ctx.sql`update messages set comprehension = '{"status":"complete","classification":{"label":"transactional_receipt"}}' where id = ${ids.invoice!}`;
  await ctx.sql`update messages set created_at = '2026-01-10T00:00:00Z' where id = ${ids.german!}`;
});

afterAll(async () => {
  await ctx.close();
});

describe("search: happy path", () => {
  test("ranks the subject match above a body mention, with a highlighted snippet", async () => {
    const response = await search({ q: "invoice" });
    expect(response.status).toBe(200);
    expect(names(response.body)).toEqual(["invoice", "mention"]);
    expect(response.body.results[0].rank).toBeGreaterThan(response.body.results[1].rank);
    expect(response.body.results[0].snippet).toContain("**invoice**");
    expect(response.body.next_cursor).toBeNull();
  });

  test("phrases, exclusions, prefixes and identifiers", async () => {
    expect(names((await search({ q: '"acme invoice"' })).body)).toEqual(["mention"]);
    expect(names((await search({ q: "invoice -lunch" })).body)).toEqual(["invoice"]);
    expect(names((await search({ q: "invo*" })).body).sort()).toEqual(["invoice", "mention"]);
    expect(names((await search({ q: "INV-2026-0912" })).body)).toEqual(["invoice"]);
    expect(names((await search({ q: "acme" })).body).sort()).toEqual(["invoice", "mention"]);
  });

  test("non-English words match as written; attachment text is searched", async () => {
    expect(names((await search({ q: "überweisung" })).body)).toEqual(["german"]);
    expect(names((await search({ q: "Überw*" })).body)).toEqual(["german"]);
    expect(names((await search({ q: "warehouse manifest" })).body)).toEqual(["attached"]);
  });

  test("filters: from (address or domain), dates, attachment, label, direction", async () => {
    expect(names((await search({ from: "billing@acme.com" })).body)).toEqual(["invoice"]);
    expect(names((await search({ from: "beispiel.de" })).body)).toEqual(["german"]);
    expect(names((await search({ before: "2026-02-01" })).body)).toEqual(["german"]);
    expect(names((await search({ after: "2026-02-01", q: "invoice" })).body)).toEqual(["invoice", "mention"]);
    expect(names((await search({ has_attachment: "true" })).body)).toEqual(["attached"]);
    expect(names((await search({ has_attachment: "false", q: "invoice" })).body)).toEqual(["invoice", "mention"]);
    expect(names((await search({ label: "transactional_receipt" })).body)).toEqual(["invoice"]);
    expect((await search({ direction: "out" })).body.results).toEqual([]);
    expect((await search({ direction: "in" })).body.results).toHaveLength(4);
  });

  test("the cursor walks ranked results and date-ordered results without repeats", async () => {
    for (const params of [{ q: "invoice" }, {}] as Record<string, string>[]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const response: any = await search({ ...params, limit: "1", ...(cursor ? { cursor } : {}) });
        expect(response.status).toBe(200);
        seen.push(...response.body.results.map((r: any) => r.id));
        cursor = response.body.next_cursor;
      } while (cursor);
      const all = (await search({ ...params, limit: "100" })).body.results.map((r: any) => r.id);
      expect(seen).toEqual(all);
    }
  });
});

describe("search: the ranking window", () => {
  test("relevance orders the newest RANK_WINDOW matches; an older match is reached with before", async () => {
    const [mailbox] = await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${(await makeMailbox(ctx, owner, "window")).id}`;
    await ctx.sql`
      insert into messages (id, account_id, mailbox_id, direction, thread_id, from_addr, to_addr, subject, body_clean, created_at)
      select 'msg_window' || g, ${owner.accountId}, ${mailbox!.id}, 'in', 'thr_window' || g, 'a@b.example', ${mailbox!.address},
        case when g = 0 then 'zebra zebra zebra' else 'note' end, 'a zebra passed', timestamptz '2026-01-01' + g * interval '1 minute'
      from generate_series(0, ${RANK_WINDOW}) as g`;
    // Their search documents, as screening writes them.
    await ctx.sql`
      update messages set search = message_search_document(subject, from_addr, body_clean, attachment_text)
      where mailbox_id = ${mailbox!.id}`;
    const query = (params: string) =>
      ctx.request("GET", `/api/v1/search?mailbox_id=${mailbox!.id}&q=zebra&limit=1${params}`, { key: owner.key });
    // The oldest message ranks highest but lies outside the window of the newest matches.
    expect((await query("")).body.results[0].id).not.toBe("msg_window0");
    expect((await query("&before=2026-01-01T00:00:30Z")).body.results[0].id).toBe("msg_window0");
  });
});

describe("search: errors", () => {
  test("a bad date, a bad direction, a bad cursor, a missing mailbox_id are 400", async () => {
    expect((await search({ after: "yesterday" })).body).toEqual({ error: "after must be an ISO 8601 date or date-time" });
    // Strict: dates that do not exist are refused, not rolled over into the next month or day.
    for (const bad of [
      "2020-02-30",
      "2021-02-29",
      "2020-13-01",
      "2020-04-31",
      "2020-01-01T24:00:00Z",
      "2020-01-01T10:60",
      "2020-1-1",
      "2020-01-01 10:00",
    ]) {
      expect((await search({ before: bad })).body).toEqual({ error: "before must be an ISO 8601 date or date-time" });
    }
    for (const good of ["2020-02-29", "2020-02-29T23:59:59.999Z", "2020-02-29T10:00+02:00", "2020-02-29T10:00"]) {
      expect((await search({ before: good })).status).toBe(200);
    }
    expect((await search({ direction: "sideways" })).status).toBe(400);
    expect((await search({ cursor: "bad!" })).status).toBe(400);
    expect((await ctx.request("GET", "/api/v1/search?q=x", { key: owner.key })).status).toBe(400);
    expect((await search({ q: "x".repeat(501) })).status).toBe(400);
  });

  test("query syntax that is not valid tsquery is still searched, never a 500", async () => {
    for (const q of ["'", "\\", "a:*", "!!", "(", "*", "a & | b", "' :* '*", '"unclosed']) {
      expect((await search({ q })).status).toBe(200);
    }
  });
});

describe("search: isolation", () => {
  test("another account's mailbox returns nothing; a bound key is 403 on another mailbox", async () => {
    const theirs = await ctx.request("GET", `/api/v1/search?mailbox_id=${foreign.id}&q=invoice`, { key: owner.key });
    expect(theirs.body.results).toEqual([]);
    expect((await search({ q: "invoice" }, stranger.key)).body.results).toEqual([]);
    const bound = await search({ q: "invoice" }, boundKey);
    expect(bound.status).toBe(403);
    expect(bound.body.code).toBe("key_scope");
  });
});
