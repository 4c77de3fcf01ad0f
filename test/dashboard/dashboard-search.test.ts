// The Mail page's search over real HTTP: core's full-text search scoped to the signed-in account
// and the chosen mailbox, its filters from the form (direction, sender, attachment, days), ranked
// results with the matching passage highlighted, paging with the search cursor, refused input as
// a 400 page, another account's mail never found, and hostile mail shown as text.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { highlight } from "../../src/dashboard/mail-search.ts";
import { MAIL_PAGE_SIZE } from "../../src/dashboard/pages/mail.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { DashboardClient, signUp } from "../support/dashboard-client.ts";
import { mime, receive } from "../support/mail-fixtures.ts";

let ctx: TestContext;
let server: HttpServer;
let owner: Fixture;
let mailbox: { id: string; address: string };
let second: { id: string; address: string };
let otherMailbox: { id: string; address: string };
let alice: DashboardClient;
let bob: DashboardClient;
const ids: Record<string, string> = {};

function rowIds(text: string): string[] {
  return [...text.matchAll(/<tr id="message-([^"]+)"/g)].map((m) => m[1]!);
}

function search(mailboxId: string, fields: Record<string, string>): string {
  return `/dashboard/mail?${new URLSearchParams({ mailbox: mailboxId, ...fields })}`;
}

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  const base = `http://127.0.0.1:${server.port}`;
  owner = await makeAccount(ctx);
  const other = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, owner, "searchpages");
  second = await makeMailbox(ctx, owner, "searchsecond");
  otherMailbox = await makeMailbox(ctx, other, "searchother");
  alice = (await signUp(ctx, base, owner.accountId, "alice@example.com")).client;
  bob = (await signUp(ctx, base, other.accountId, "bob@example.com")).client;

  ids.budget = await receive(
    ctx,
    mailbox.id,
    mime({
      from: "Carol <carol@finance.example.org>",
      to: mailbox.address,
      subject: "Quarterly budget report",
      text: "The budget report for the third quarter is attached.",
      attachment: { name: "q3.txt", type: "text/plain", content: "q3 figures" },
    }),
  );
  ids.apart = await receive(
    ctx,
    mailbox.id,
    mime({
      from: "dave@example.net",
      to: mailbox.address,
      subject: "Travel",
      text: "A report on travel, and separately the budget for next year.",
    }),
  );
  ids.lunch = await receive(
    ctx,
    mailbox.id,
    mime({ from: "erin@example.net", to: mailbox.address, subject: "Lunch on Friday", text: "Pizza or salad?" }),
  );
  ids.hostile = await receive(
    ctx,
    mailbox.id,
    mime({
      from: "mallory@example.net",
      to: mailbox.address,
      subject: `<script>alert("subject")</script> zebrafish`,
      text: `zebrafish <img src=x onerror=alert(1)> and **<b>bold</b>** then "quoted" & more`,
    }),
  );
  ids.secondBox = await receive(
    ctx,
    second.id,
    mime({ from: "carol@finance.example.org", to: second.address, subject: "Budget in the other mailbox", text: "budget" }),
  );
  ids.foreign = await receive(
    ctx,
    otherMailbox.id,
    mime({
      from: "carol@finance.example.org",
      to: otherMailbox.address,
      subject: "Budget of another account",
      text: "budget report secret",
    }),
  );
  const sent = await ctx.request("POST", "/api/v1/send", {
    key: owner.key,
    body: { mailbox_id: mailbox.id, to: "board@example.org", subject: "Budget approved", text: "The budget is approved." },
  });
  expect(sent.status).toBe(201);
  ids.sent = (sent.body as { id: string }).id;
  // Fixed days for the date range: the budget report in October, the rest today.
  await ctx.sql`update messages set created_at = '2026-10-15T12:00:00Z' where id = ${ids.budget}`;
});

afterAll(async () => {
  await server?.stop();
  await ctx?.close();
});

describe("search on the Mail page", () => {
  test("the form is a GET form with the search fields; the page keeps the dashboard CSP", async () => {
    const page = await alice.get(`/dashboard/mail?mailbox=${mailbox.id}`);
    expect(page.text).toMatch(/<form method="get" action="\/dashboard\/mail" class="filters" role="search">/);
    for (const name of ["q", "from", "attachment", "since", "until", "direction", "mailbox_id"])
      expect(page.text).toContain(`name="${name}"`);
    const results = await alice.get(search(mailbox.id, { q: "budget" }));
    expect(results.status).toBe(200);
    expect(results.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(results.text).not.toContain("<script");
  });

  test("finds by a word, ranked, with the match highlighted; the query stays in the box", async () => {
    const page = await alice.get(search(mailbox.id, { q: "budget" }));
    const found = rowIds(page.text);
    expect([...found].sort()).toEqual([ids.budget, ids.apart, ids.sent].sort());
    // The subject counts most: the two with "Budget" in the subject before the one with it only in the body.
    expect(found.indexOf(ids.apart!)).toBe(2);
    expect(page.text).toContain('<mark class="hit">budget</mark>');
    expect(page.text).toContain('value="budget"');
    expect(page.text).toContain("Best matches first");
  });

  test("a phrase matches the words together only; an exclusion and a prefix work as in the API", async () => {
    expect(rowIds((await alice.get(search(mailbox.id, { q: '"budget report"' }))).text)).toEqual([ids.budget!]);
    expect(rowIds((await alice.get(search(mailbox.id, { q: "budget -travel" }))).text).sort()).toEqual([ids.budget, ids.sent].sort());
    expect(rowIds((await alice.get(search(mailbox.id, { q: "quarter*" }))).text)).toEqual([ids.budget!]);
    const none = await alice.get(search(mailbox.id, { q: "nonexistentword" }));
    expect(none.status).toBe(200);
    expect(none.text).toContain("No messages match.");
  });

  test("filters: direction, sender address or domain, attachment, and an inclusive day range", async () => {
    expect(rowIds((await alice.get(search(mailbox.id, { q: "budget", direction: "out" }))).text)).toEqual([ids.sent!]);
    expect(rowIds((await alice.get(search(mailbox.id, { q: "budget", direction: "in" }))).text).sort()).toEqual(
      [ids.budget, ids.apart].sort(),
    );
    expect(rowIds((await alice.get(search(mailbox.id, { from: "carol@finance.example.org" }))).text)).toEqual([ids.budget!]);
    expect(rowIds((await alice.get(search(mailbox.id, { from: "example.net", direction: "in" }))).text).sort()).toEqual(
      [ids.apart, ids.lunch, ids.hostile].sort(),
    );
    expect(rowIds((await alice.get(search(mailbox.id, { attachment: "yes" }))).text)).toEqual([ids.budget!]);
    const without = rowIds((await alice.get(search(mailbox.id, { q: "budget", attachment: "no" }))).text);
    expect(without.sort()).toEqual([ids.apart, ids.sent].sort());
    // The budget report is dated 2026-10-15: a range ending that day includes it, one starting the next day does not.
    expect(rowIds((await alice.get(search(mailbox.id, { since: "2026-10-01", until: "2026-10-15" }))).text)).toEqual([ids.budget!]);
    expect(rowIds((await alice.get(search(mailbox.id, { q: "budget", since: "2026-10-16" }))).text)).not.toContain(ids.budget);
    // Filters alone list newest first, without highlighting.
    const filtered = await alice.get(search(mailbox.id, { from: "example.net" }));
    expect(filtered.text).toContain("Newest first.");
  });

  test("pages through results with the search cursor, keeping the query and filters", async () => {
    for (let i = 0; i < MAIL_PAGE_SIZE + 2; i++) {
      await receive(
        ctx,
        second.id,
        mime({ from: "bulk@example.org", to: second.address, subject: `Newsletter ${i}`, text: `walrus issue ${i}` }),
      );
    }
    const first = await alice.get(search(second.id, { q: "walrus", direction: "in" }));
    const page1 = rowIds(first.text);
    expect(page1.length).toBe(MAIL_PAGE_SIZE);
    const next = /href="([^"]+)" rel="next">More results/.exec(first.text)![1]!.replaceAll("&amp;", "&");
    const url = new URL(next, "http://x");
    expect(url.searchParams.get("q")).toBe("walrus");
    expect(url.searchParams.get("direction")).toBe("in");
    expect(url.searchParams.get("cursor")).toBeTruthy();
    const page2 = rowIds((await alice.get(next)).text);
    expect(page2.length).toBe(2);
    expect(page2.some((id) => page1.includes(id))).toBe(false);
  });

  test("refused input is a 400 page with the reason, never a 500", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ since: "yesterday" }, "Since must be a date (YYYY-MM-DD)."],
      [{ until: "2026-13-45" }, "Until must be a date (YYYY-MM-DD)."],
      [{ since: "2026-10-15T00:00:00Z" }, "Since must be a date (YYYY-MM-DD)."],
      [{ q: "budget", cursor: "A".repeat(2000) }, "cursor is not a valid cursor for this listing."],
      [{ q: "budget", cursor: "not-a-cursor" }, "cursor is not a valid cursor for this listing."],
      [{ q: "x".repeat(501) }, "q must be at most 500 characters."],
      [{ from: "a".repeat(321) }, "From is at most 320 characters."],
    ];
    for (const [fields, message] of cases) {
      const page = await alice.get(search(mailbox.id, fields));
      expect(page.status).toBe(400);
      expect(page.text).toContain(message);
    }
  });
});

describe("isolation and escaping", () => {
  test("a query never returns another account's or another mailbox's mail", async () => {
    const page = await alice.get(search(mailbox.id, { q: "budget" }));
    expect(rowIds(page.text)).not.toContain(ids.foreign);
    expect(rowIds(page.text)).not.toContain(ids.secondBox);
    expect(page.text).not.toContain("another account");
    // Bob's own search sees only his.
    const bobs = await bob.get(search(otherMailbox.id, { q: "budget" }));
    expect(rowIds(bobs.text)).toEqual([ids.foreign!]);
    // A cursor is only a position: one made in Bob's mailbox brings none of his mail to Alice.
    const more = await alice.get(
      search(mailbox.id, { q: "budget", cursor: Buffer.from(`s|${Date.now() * 1000}|${ids.foreign}|1`).toString("base64url") }),
    );
    expect(more.status).toBe(200);
    expect(rowIds(more.text)).not.toContain(ids.foreign);
  });

  test("another account's mailbox id with a query is the one 404 page", async () => {
    const foreign = await alice.get(search(otherMailbox.id, { q: "budget" }));
    const missing = await alice.get(search("mbx_doesnotexist", { q: "budget" }));
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    expect(foreign.text).not.toContain("secret");
  });

  test("a hostile subject and body are text in the results; only the highlight is markup", async () => {
    const page = await alice.get(search(mailbox.id, { q: "zebrafish" }));
    expect(rowIds(page.text)).toEqual([ids.hostile!]);
    expect(page.text).toContain("&lt;script&gt;alert(&quot;subject&quot;)&lt;/script&gt; zebrafish");
    expect(page.text).not.toContain('<script>alert("subject")');
    expect(page.text).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(page.text).not.toContain("<img src=x");
    expect(page.text).not.toContain("<b>bold</b>");
    expect(page.text).toContain('<mark class="hit">zebrafish</mark>');
    // A query is echoed only as an attribute value.
    const echoed = await alice.get(search(mailbox.id, { q: '"><script>alert(2)</script>' }));
    expect(echoed.text).toContain('value="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"');
    expect(echoed.text).not.toContain("<script>alert(2)");
  });

  test("highlight: only a pair around one word becomes <mark>; the rest, markers included, is escaped text", () => {
    expect(highlight("pay **invoice** now").value).toBe('pay <mark class="hit">invoice</mark> now');
    expect(highlight("**<b>x</b>**").value).toBe('<mark class="hit">&lt;b&gt;x&lt;/b&gt;</mark>');
    expect(highlight("a ** b ** c").value).toBe("a ** b ** c");
    expect(highlight("open ** only <i>").value).toBe("open ** only &lt;i&gt;");
    expect(highlight("**a** **b**").value).toBe('<mark class="hit">a</mark> <mark class="hit">b</mark>');
    expect(highlight("x\u202E**y**").value).toBe('x<mark class="hidden-char">U+202E</mark><mark class="hit">y</mark>');
  });

  test("search pages need a session", async () => {
    const anonymous = new DashboardClient(`http://127.0.0.1:${server.port}`);
    const reply = await anonymous.get(search(mailbox.id, { q: "budget" }));
    expect(reply.status).toBe(303);
    expect(reply.headers.get("location")).toBe("/dashboard/login");
  });
});
