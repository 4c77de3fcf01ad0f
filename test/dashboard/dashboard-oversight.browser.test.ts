// The oversight pages in a real headless Chromium against the real HTTP server on loopback: the
// mail list and message page, and the sandboxed original. A script and remote loads inside mail
// must not run or load: a local HTTP server stands in for the sender's image host and counts
// what reaches it, and the script's side effects are looked for in both documents.
// Without /usr/bin/chromium these tests skip and say so; under CI=true they fail instead.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { createUser } from "../../src/core/accounts/users.ts";
import { createDomain } from "../../src/core/domains/domains.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type HeadlessBrowser, launchChromium } from "../support/browser.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";
import { mime, receive } from "../support/mail-fixtures.ts";
import { needTools } from "../support/system-tools.ts";

const EMAIL = "overseer@example.com";
const PASSWORD = "a long enough password";
const haveBrowser = await needTools(import.meta.path, ["chromium"], "the oversight pages in headless Chromium");

describe.skipIf(!haveBrowser)("oversight pages in Chromium", () => {
  let ctx: TestContext;
  let server: HttpServer;
  let headless: HeadlessBrowser;
  let page: Page;
  let base: string;
  let owner: Fixture;
  let mailbox: { id: string; address: string };
  let hostile: string;
  let sender: ReturnType<typeof Bun.serve>;
  let dns: DnsServer;
  const senderHits: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    // The sender's server: every request that reaches it is a leak unless the human asked for images.
    sender = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        senderHits.push(new URL(request.url).pathname);
        const gif = Uint8Array.from(atob("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"), (c) => c.charCodeAt(0));
        return new Response(gif, { headers: { "content-type": "image/gif" } });
      },
    });
    const remote = `http://127.0.0.1:${sender.port}`;
    dns = await startDnsServer({});
    ctx = await makeTestContext({ HTTP_PORT: "0", DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: "1000" });
    server = startHttpServer(ctx.svc, ctx.app);
    base = `http://127.0.0.1:${server.port}`;
    owner = await makeAccount(ctx, { plan: "paid" });
    mailbox = await makeMailbox(ctx, owner, "overseen");
    await createUser(ctx.sql, { accountId: owner.accountId, email: EMAIL, password: PASSWORD });
    hostile = await receive(
      ctx,
      mailbox.id,
      mime({
        from: "Mallory <mallory@example.org>",
        to: mailbox.address,
        subject: "Quarterly numbers",
        text: "See the numbers.",
        html: `<html><head><meta http-equiv="refresh" content="0; url=${remote}/refresh"><link rel="stylesheet" href="${remote}/style.css"></head>
<body><h1 id="greeting">Quarterly numbers</h1><p>See the numbers.</p>
<img id="pixel" src="${remote}/remote.png" width="1" height="1">
<div style="background-image: url('${remote}/css-bg.png')">styled</div>
<img src="x" onerror="fetch('${remote}/onerror')">
<script>document.body.setAttribute("data-script-ran", "yes"); fetch("${remote}/script"); try { parent.document.title = "owned" } catch (e) {}</script>
<form action="${remote}/form" method="post"><button id="submit">Send</button></form>
</body></html>`,
      }),
    );
    for (let i = 0; i < 3; i++)
      await receive(
        ctx,
        mailbox.id,
        mime({ from: "team@example.org", to: mailbox.address, subject: `Status update ${i}`, text: `Status ${i}: all good.` }),
      );
    headless = await launchChromium();
    page = await headless.context.newPage();
    // Console errors from the dashboard's own pages mean a CSP violation or a script error. The
    // sandboxed original is expected to report its blocked loads, so those are not counted.
    page.on("console", (message) => {
      if (message.type() === "error" && !message.location().url.includes("/original"))
        problems.push(`${message.location().url}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${base}/dashboard/login`);
    await page.fill('input[name="email"]', EMAIL);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(`${base}/dashboard`);
  }, 90_000);

  afterAll(async () => {
    await headless?.close();
    await server?.stop();
    sender?.stop(true);
    await dns?.close();
    await ctx?.close();
  });

  test("mail: the list shows the mailbox's messages with verdicts; a subject opens the message", async () => {
    await page.click('nav a:has-text("Mail")');
    await page.waitForURL(`${base}/dashboard/mail`);
    expect(await page.textContent("h1")).toBe(`Mail · ${mailbox.address}`);
    expect(await page.locator("table.mail tbody tr").count()).toBe(4);
    expect(await page.textContent(`#message-${hostile}`)).toContain("Quarterly numbers");
    await page.click(`#message-${hostile} a`);
    await page.waitForURL(`${base}/dashboard/mail/${hostile}`);
    expect(await page.textContent("#headers")).toContain("mallory@example.org");
    expect(await page.textContent("#sanitization")).toContain("Scripts, styles and embeds removed");
  });

  test("mail search: the form submits without script and shows the matches with the word highlighted", async () => {
    await page.goto(`${base}/dashboard/mail`);
    await page.fill('input[name="q"]', "status");
    await page.selectOption('select[name="direction"]', "in");
    await page.click('form.filters button:has-text("Show")');
    await page.waitForURL((url) => url.searchParams.get("q") === "status");
    expect(await page.locator("table.mail tbody tr").count()).toBe(3);
    expect(await page.locator(`#message-${hostile}`).count()).toBe(0);
    expect(await page.locator("table.mail mark.hit").first().textContent()).toBe("Status");
    expect(await page.inputValue('input[name="q"]')).toBe("status");
  });

  test("the original renders in the sandboxed frame: no script runs, nothing remote loads, no refresh, no form", async () => {
    await page.goto(`${base}/dashboard/mail/${hostile}`);
    const frameElement = page.locator("iframe.original");
    expect(await frameElement.getAttribute("sandbox")).toBe("");
    const frame = page.frameLocator("iframe.original");
    // The sender's HTML did render (so the frame is not simply empty) ...
    expect(await frame.locator("#greeting").textContent()).toBe("Quarterly numbers");
    await page.waitForTimeout(1500);
    // ... but its script had no effect in either document, and nothing reached the sender.
    expect(await frame.locator("body").getAttribute("data-script-ran")).toBeNull();
    expect(await page.title()).not.toBe("owned");
    expect(await frame.locator("#pixel").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(0);
    await frame.locator("#submit").click();
    await page.waitForTimeout(500);
    expect(senderHits).toEqual([]);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/mail/${hostile}`);
  });

  test("remote images load only after the human clicks for them, and still no script runs", async () => {
    await page.goto(`${base}/dashboard/mail/${hostile}`);
    await page.click('a:has-text("Load remote images")');
    const frame = page.frameLocator("iframe.original");
    const deadline = Date.now() + 5000;
    while (!senderHits.includes("/remote.png") && Date.now() < deadline) await page.waitForTimeout(100);
    expect(senderHits).toContain("/remote.png");
    expect(await frame.locator("#pixel").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    expect(senderHits).not.toContain("/script");
    expect(senderHits).not.toContain("/onerror");
    expect(senderHits).not.toContain("/refresh");
    expect(await frame.locator("body").getAttribute("data-script-ran")).toBeNull();
    expect(await page.title()).not.toBe("owned");
  });

  test("activity: server-drawn charts with their tables, no script needed", async () => {
    await page.click('nav a:has-text("Activity")');
    await page.waitForURL(`${base}/dashboard/activity`);
    expect(await page.locator("figure.chart svg").count()).toBeGreaterThanOrEqual(5);
    expect(await page.locator("#inbound rect title").count()).toBeGreaterThan(0);
    await page.click("#inbound summary");
    expect(await page.locator("#inbound table tbody tr").count()).toBe(1);
    expect(await page.locator("#inbound svg[role=img]").boundingBox()).toMatchObject({ width: expect.any(Number) });
  });

  test("domains: add one, see the records to publish with their state, verify", async () => {
    await page.click('nav a:has-text("Domains")');
    await page.waitForURL(`${base}/dashboard/domains`);
    await page.fill('input[name="name"]', "browser.example.org");
    await page.click('button:has-text("Add domain")');
    await page.waitForURL(/\/dashboard\/domains\/dom_/);
    expect(await page.locator(".record-card").count()).toBe(4);
    expect(await page.textContent("#record-inbound")).toContain("not checked yet");
    // The MX record goes up; the rest stay missing.
    dns.zone["browser.example.org"] = { MX: [{ exchange: ctx.config.mxHost, priority: 10 }] };
    await page.click('button:has-text("Verify now")');
    await page.waitForSelector(".notice.error");
    expect(await page.textContent("#record-inbound .badge")).toBe("seen");
    expect(await page.textContent("#record-dkim .badge")).toBe("missing");
  });

  test("people: add a person, see the password once, and the action in the audit trail", async () => {
    await page.click('nav a:has-text("People")');
    await page.waitForURL(`${base}/dashboard/people`);
    await page.fill('#add-person input[name="email"]', "colleague@example.com");
    await page.click('button:has-text("Add and show a password")');
    await page.waitForSelector("#new-person .secret-value");
    expect((await page.textContent("#new-person .secret-value"))!.length).toBeGreaterThanOrEqual(12);
    // The trail records an action once it has ended, so the next page view shows it.
    await page.goto(`${base}/dashboard/people`);
    expect(await page.locator(".secret-value").count()).toBe(0);
    expect(await page.textContent("#audit tbody tr:first-child")).toContain("person.add");
  });

  test("schemas: create one from an uploaded file and attach it to a mailbox", async () => {
    await page.click('nav a:has-text("Schemas")');
    await page.waitForURL(`${base}/dashboard/schemas`);
    await page.fill('#create-schema input[name="name"]', "Receipts");
    await page.setInputFiles('#create-schema input[name="schema_file"]', {
      name: "receipts.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify({ type: "object", properties: { total: { type: "number" } } })),
    });
    await page.click('button:has-text("Create schema")');
    await page.waitForSelector(".notice.ok");
    expect(await page.textContent("table")).toContain("Receipts");
    await page.selectOption('#attach-schema select[name="mailbox_id"]', mailbox.id);
    await page.selectOption('#attach-schema select[name="schema_id"]', { label: "Receipts" });
    await page.click('#attach-schema button:has-text("Save")');
    await page.waitForSelector(".notice.ok");
    const [row] =
      await ctx.sql`select s.name from mailboxes m join extraction_schemas s on s.id = m.extraction_schema_id where m.id = ${mailbox.id}`;
    expect(row?.name).toBe("Receipts");
  });

  test("CSRF: every new form with a forged token is refused (403) in the browser", async () => {
    const forms: [string, string][] = [
      ["/dashboard/domains", 'form[action="/dashboard/domains"]'],
      ["/dashboard/people", "#add-person"],
      ["/dashboard/people", "#change-password"],
      ["/dashboard/schemas", "#create-schema"],
      ["/dashboard/schemas", "#attach-schema"],
    ];
    const [domain] = await ctx.sql`select id from domains where account_id = ${owner.accountId}`;
    forms.push([`/dashboard/domains/${domain!.id}`, 'form[action$="/verify"]']);
    const [colleague] = await ctx.sql`select id from dashboard_users where email = 'colleague@example.com'`;
    forms.push(["/dashboard/people", `form[action="/dashboard/people/${colleague!.id}/remove"]`]);
    const before = problems.length;
    for (const [pagePath, selector] of forms) {
      await page.goto(`${base}${pagePath}`);
      const form = page.locator(selector);
      await form.locator('input[name="csrf"]').evaluate((input: HTMLInputElement) => (input.value = "forged"));
      for (const field of await form.locator("input[required]:not([type=hidden])").all()) {
        if ((await field.getAttribute("type")) === "email") await field.fill("someone@example.com");
        else await field.fill("a long enough value");
      }
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        form.locator('button[type="submit"]').click(),
      ]);
      expect(`${selector}: ${response.status()}`).toBe(`${selector}: 403`);
      expect(await page.textContent("h1")).toBe("Request refused");
    }
    expect((await ctx.sql`select 1 from dashboard_users where email = 'someone@example.com'`).length).toBe(0);
    expect((await ctx.sql`select 1 from dashboard_users where id = ${colleague!.id}`).length).toBe(1);
    // Chromium logs each refused POST as a failed load; those, and only those, are expected here.
    const refused = problems.splice(before);
    expect(refused.length).toBe(forms.length);
    for (const line of refused) expect(line).toContain("the server responded with a status of 403");
  });

  test("another account's message, original, raw message, mailbox and domain are the one 404 page", async () => {
    const stranger = await makeAccount(ctx, { plan: "paid" });
    const theirs = await makeMailbox(ctx, stranger, "stranger");
    const message = await receive(
      ctx,
      theirs.id,
      mime({ from: "x@example.org", to: theirs.address, subject: "Not yours", text: "private" }),
    );
    const principal = {
      keyId: stranger.keyId,
      accountId: stranger.accountId,
      plan: "paid" as const,
      scope: "api" as const,
      mailboxId: null,
      canRead: true,
      canSend: true,
    };
    const domain = await createDomain(ctx.svc, principal, "stranger.example.org");
    const before = problems.length;
    const missing = await page.goto(`${base}/dashboard/mail/msg_000000000000000000000000`);
    const missingBody = await page.textContent("main");
    expect(missing!.status()).toBe(404);
    for (const path of [
      `/dashboard/mail/${message}`,
      `/dashboard/mail?mailbox=${theirs.id}`,
      `/dashboard/activity?mailbox=${theirs.id}`,
      `/dashboard/domains/${domain.id}`,
    ]) {
      const response = await page.goto(`${base}${path}`);
      expect(`${path}: ${response!.status()}`).toBe(`${path}: 404`);
      expect(await page.textContent("main")).toBe(missingBody);
    }
    for (const path of [`/dashboard/mail/${message}/original`, `/dashboard/mail/${message}/raw`]) {
      const response = await page.request.get(`${base}${path}`);
      expect(response.status()).toBe(404);
    }
    // Chromium logs each 404 page as a failed load; those, and only those, are expected here.
    const notFound = problems.splice(before);
    expect(notFound.length).toBe(5);
    for (const line of notFound) expect(line).toContain("the server responded with a status of 404");
  });

  test("the approval queue is one click from the top of every page while drafts wait", async () => {
    await ctx.sql`update mailboxes set require_approval = true where id = ${mailbox.id}`;
    const queued = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: mailbox.id, to: "someone@example.net", subject: "Needs a human", text: "ok?" },
    });
    expect(queued.status).toBe(202);
    for (const path of [
      "/dashboard",
      "/dashboard/mail",
      `/dashboard/mail/${hostile}`,
      "/dashboard/activity",
      "/dashboard/domains",
      "/dashboard/people",
      "/dashboard/schemas",
      "/dashboard/keys",
    ]) {
      await page.goto(`${base}${path}`);
      await page.click("a.pending");
      await page.waitForURL(`${base}/dashboard/approvals`);
      expect(await page.locator(`#draft-${queued.body.draft_id}`).count()).toBe(1);
    }
  });

  test("every page fits a phone screen (390 px): nothing is wider than the screen", async () => {
    const phone = await headless.browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const small = await phone.newPage();
      await small.goto(`${base}/dashboard/login`);
      await small.fill('input[name="email"]', EMAIL);
      await small.fill('input[name="password"]', PASSWORD);
      await small.click('button:has-text("Sign in")');
      await small.waitForURL(`${base}/dashboard`);
      const [domain] = await ctx.sql`select id from domains where account_id = ${owner.accountId}`;
      const pages = [
        "/dashboard",
        "/dashboard/mail",
        `/dashboard/mail/${hostile}`,
        "/dashboard/activity",
        "/dashboard/domains",
        `/dashboard/domains/${domain!.id}`,
        "/dashboard/people",
        "/dashboard/schemas",
        "/dashboard/approvals",
        "/dashboard/keys",
        "/dashboard/sendlists",
        "/dashboard/mailboxes",
        "/dashboard/webhook",
      ];
      const wide: string[] = [];
      for (const path of pages) {
        await small.goto(`${base}${path}`);
        const width = await small.evaluate(() => document.documentElement.scrollWidth);
        if (width > 390) wide.push(`${path}: ${width}px`);
      }
      expect(wide).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  test("no dashboard page reported a console error or a CSP violation", () => {
    expect(problems).toEqual([]);
  });
});
