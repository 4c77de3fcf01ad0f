// The approval queue and the reviewer's confirmation page in a real headless Chromium, at phone
// (390 px) and desktop (1280 px) width: no page wider than the screen, the two buttons whole and
// on one line (a squeezed table once broke "Approve and send" into a letter a line), and the
// confirmation page's buttons working, with the CSP holding (no console error).
// Without /usr/bin/chromium these tests skip and say so; under CI=true they fail instead.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import type { Page } from "playwright-core";
import { createUser } from "../../src/core/accounts/users.ts";
import { notifyReviewers } from "../../src/core/outbound/approvals.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type HeadlessBrowser, launchChromium } from "../support/browser.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { needTools } from "../support/system-tools.ts";

const EMAIL = "reviewer@example.com";
const PASSWORD = "a long enough password";
const WIDTHS = [390, 1280] as const;

const haveBrowser = await needTools(import.meta.path, ["chromium"], "the approval queue and review page in headless Chromium");

describe.skipIf(!haveBrowser)("approvals at phone and desktop width", () => {
  let ctx: TestContext;
  let server: HttpServer;
  let headless: HeadlessBrowser;
  let base: string;
  let owner: Fixture;
  let mailbox: { id: string; address: string };
  const problems: string[] = [];

  beforeAll(async () => {
    ctx = await makeTestContext({ HTTP_PORT: "0" });
    server = startHttpServer(ctx.svc, ctx.app);
    base = `http://127.0.0.1:${server.port}`;
    owner = await makeAccount(ctx);
    mailbox = await makeMailbox(ctx, owner, "a-rather-long-mailbox-name-for-a-phone");
    await createUser(ctx.sql, { accountId: owner.accountId, email: EMAIL, password: PASSWORD });
    await ctx.sql`update mailboxes set require_approval = true where id = ${mailbox.id}`;
    headless = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await headless?.close();
    await server?.stop();
    await ctx?.close();
  });

  async function pending(subject: string): Promise<string> {
    const queued = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: {
        mailbox_id: mailbox.id,
        to: "someone.with.a.long.address@subdomain.example.net",
        subject,
        text: `${"A long line of text that must wrap on a phone instead of widening the page. ".repeat(6)}\nhttps://example.org/${"x".repeat(120)}`,
      },
    });
    expect(queued.status).toBe(202);
    return queued.body.draft_id;
  }

  /** The reviewer's link, from the email the service sent (the local transport keeps it in its outbox). */
  async function reviewLink(draftId: string): Promise<string> {
    const [review] = await ctx.sql`select id from draft_reviews where draft_id = ${draftId}`;
    await notifyReviewers(ctx.svc, review!.id);
    const kept = await ctx.sql`select raw from local_outbox where rcpt_to = ${EMAIL} order by created_at desc, id desc`;
    for (const row of kept) {
      const mail = await simpleParser(Buffer.from(row.raw as Uint8Array));
      if (mail.text?.includes(`Draft: ${draftId}`)) return /\/dashboard\/review\/[A-Za-z0-9_-]+/.exec(mail.text)![0];
    }
    throw new Error(`no reviewer email for ${draftId}`);
  }

  async function open(width: number, signIn: boolean): Promise<Page> {
    const context = await headless.browser.newContext({ viewport: { width, height: 844 } });
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`${width}px: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(error.message));
    if (signIn) {
      await page.goto(`${base}/dashboard/login`);
      await page.fill('input[name="email"]', EMAIL);
      await page.fill('input[name="password"]', PASSWORD);
      await page.click('button:has-text("Sign in")');
      await page.waitForURL(`${base}/dashboard`);
    }
    return page;
  }

  /** Each button whole: as wide as its label needs, on one line (about one line of text high). */
  async function expectWholeButtons(page: Page, scope: string): Promise<void> {
    for (const label of ["Approve and send", "Reject"]) {
      const button = page.locator(`${scope} button:has-text("${label}")`).first();
      const box = (await button.boundingBox())!;
      const lineHeight = await button.evaluate((el) => Number.parseFloat(getComputedStyle(el).lineHeight) || 20);
      expect([label, box.height < lineHeight * 1.9 + 24]).toEqual([label, true]);
      const needed = await button.evaluate((el) => el.scrollWidth);
      expect([label, box.width + 1 >= needed]).toEqual([label, true]);
      expect(await button.isVisible()).toBe(true);
    }
  }

  for (const width of WIDTHS) {
    test(`the approval queue at ${width} px: no wider than the screen, both buttons whole`, async () => {
      const draftId = await pending(`Quarterly figures for the board, with a subject long enough to wrap (${width})`);
      const page = await open(width, true);
      await page.goto(`${base}/dashboard/approvals`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(await page.locator("main table").count()).toBe(0);
      await expectWholeButtons(page, `#draft-${draftId}`);
      if (width === 390) {
        // On a phone the buttons take the card's width, one under the other.
        const card = (await page.locator(`#draft-${draftId}`).boundingBox())!;
        const approve = (await page.locator(`#draft-${draftId} button:has-text("Approve and send")`).boundingBox())!;
        expect(approve.width).toBeGreaterThan(card.width * 0.8);
      }
      await page.context().close();
    });

    test(`the reviewer's confirmation page at ${width} px: the message, two whole buttons, and Approve sends it once`, async () => {
      const draftId = await pending(`Please confirm (${width})`);
      const link = await reviewLink(draftId);
      const page = await open(width, false);
      await page.goto(`${base}${link}?intent=approve`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(await page.textContent("pre.message-text")).toContain("must wrap on a phone");
      await expectWholeButtons(page, "form.decide");
      expect((await ctx.sql`select status from drafts where id = ${draftId}`)[0]!.status).toBe("pending_approval");
      await page.click('form.decide button:has-text("Approve and send")');
      await page.waitForSelector(".notice");
      expect(await page.textContent(".notice")).toContain("Approved and sent");
      expect((await ctx.sql`select status from drafts where id = ${draftId}`)[0]!.status).toBe("sent");
      // The link again: what happened and who did it, and no buttons.
      await page.goto(`${base}${link}`);
      expect(await page.textContent("#what-happened")).toContain(EMAIL);
      expect(await page.locator("form.decide").count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.context().close();
    });
  }

  test("the mailboxes page with its pause and review window at 390 px, and the corrections page", async () => {
    const page = await open(390, true);
    for (const path of ["/dashboard/mailboxes", "/dashboard/people", "/dashboard/corrections"]) {
      await page.goto(`${base}${path}`);
      expect([path, await page.evaluate(() => document.documentElement.scrollWidth)]).toEqual([path, expect.any(Number)]);
      expect([path, (await page.evaluate(() => document.documentElement.scrollWidth)) <= 390]).toEqual([path, true]);
    }
    await page.goto(`${base}/dashboard/mailboxes`);
    expect(await page.locator(`#mailbox-${mailbox.id} button:has-text("Pause")`).isVisible()).toBe(true);
    await page.context().close();
  });

  test("no page reported a console error or a CSP violation", () => {
    expect(problems).toEqual([]);
  });
});
