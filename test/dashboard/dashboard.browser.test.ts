// The dashboard in a real headless Chromium (Debian's, driven by playwright-core) against the
// real HTTP server on loopback: sign in, create a key and see its secret once, approve a pending
// draft and see it leave the queue, add a block-list entry. The CSP must hold with no violation
// reported: the pages need no script and no inline style.
// Without /usr/bin/chromium these tests skip and say so; under CI=true they fail instead.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { createUser } from "../../src/core/accounts/users.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type HeadlessBrowser, launchChromium } from "../support/browser.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { needTools } from "../support/system-tools.ts";

const EMAIL = "operator@example.com";
const PASSWORD = "a long enough password";

const haveBrowser = await needTools(import.meta.path, ["chromium"], "the dashboard in headless Chromium");

describe.skipIf(!haveBrowser)("the dashboard in Chromium", () => {
  let ctx: TestContext;
  let server: HttpServer;
  let headless: HeadlessBrowser;
  let page: Page;
  let base: string;
  let owner: Fixture;
  let mailbox: { id: string; address: string };
  let draftId: string;
  const problems: string[] = [];

  beforeAll(async () => {
    ctx = await makeTestContext({ HTTP_PORT: "0" });
    server = startHttpServer(ctx.svc, ctx.app);
    base = `http://127.0.0.1:${server.port}`;
    owner = await makeAccount(ctx);
    mailbox = await makeMailbox(ctx, owner, "browser");
    await createUser(ctx.sql, { accountId: owner.accountId, email: EMAIL, password: PASSWORD });
    await ctx.sql`update mailboxes set require_approval = true where id = ${mailbox.id}`;
    const queued = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: mailbox.id, to: "reader@example.net", subject: "Quarterly report", text: "The report is attached in spirit." },
    });
    expect(queued.status).toBe(202);
    draftId = queued.body.draft_id;
    headless = await launchChromium();
    page = await headless.context.newPage();
    // A CSP violation or a script error shows up as a console error: there must be none.
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
  }, 90_000);

  afterAll(async () => {
    await headless?.close();
    await server?.stop();
    await ctx?.close();
  });

  test("sign in with email and password", async () => {
    await page.goto(`${base}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/login");
    await page.fill('input[name="email"]', EMAIL);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(`${base}/dashboard`);
    expect(await page.textContent("h1")).toBe("Overview");
    expect(await page.textContent("main")).toContain(EMAIL);
    const cookies = await headless.context.cookies(`${base}/dashboard`);
    const session = cookies.find((c) => c.name === "dashboard_session")!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
  });

  test("create a key: the secret is shown once, then never again", async () => {
    await page.click('nav a:has-text("API keys")');
    await page.waitForURL(`${base}/dashboard/keys`);
    await page.fill('input[name="name"]', "browser key");
    await page.selectOption('select[name="scope"]', "api");
    await page.click('button:has-text("Create key")');
    await page.waitForSelector(".secret-value");
    const secret = (await page.textContent(".secret-value"))!.trim();
    expect(secret).toMatch(/^svc_[A-Za-z0-9_-]{40,}$/);
    expect((await ctx.request("GET", "/api/v1/mailboxes", { key: secret })).status).toBe(200);
    await page.goto(`${base}/dashboard/keys`);
    expect(await page.locator(".secret-value").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    expect(await page.textContent("table")).toContain("browser key");
  });

  test("approve a pending draft: it is sent and leaves the queue", async () => {
    await page.click('nav a:has-text("Approvals")');
    await page.waitForURL(`${base}/dashboard/approvals`);
    const row = page.locator(`#draft-${draftId}`);
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain("Quarterly report");
    await row.locator('button:has-text("Approve and send")').click();
    await page.waitForSelector(".notice.ok");
    expect(await page.textContent(".notice")).toContain("Approved and sent");
    expect(await page.locator(`#draft-${draftId}`).count()).toBe(0);
    expect((await ctx.sql`select status from drafts where id = ${draftId}`)[0]!.status).toBe("sent");
  });

  test("add a block-list entry", async () => {
    await page.click('nav a:has-text("Send lists")');
    await page.waitForURL(`${base}/dashboard/sendlists`);
    await page.selectOption('select[name="kind"]', "block");
    await page.fill('input[name="pattern"]', "Blocked.Example");
    await page.click('button:has-text("Add entry")');
    await page.waitForSelector(".notice.ok");
    expect(await page.textContent(".notice")).toContain("The entry was added.");
    expect(await page.textContent("table")).toContain("blocked.example");
    const [entry] = await ctx.sql`select kind, pattern, mailbox_id from send_list_entries where account_id = ${owner.accountId}`;
    expect(entry).toEqual({ kind: "block", pattern: "blocked.example", mailbox_id: null });
    const blocked = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: mailbox.id, to: "x@blocked.example", text: "hi" },
    });
    expect(blocked.status).toBe(403);
    expect(blocked.body.code).toBe("send_blocked_by_list");
  });

  test("no page reported a console error or a CSP violation", () => {
    expect(problems).toEqual([]);
  });
});
