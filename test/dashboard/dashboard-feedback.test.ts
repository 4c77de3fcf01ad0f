// The dashboard's corrections over real HTTP: the buttons on a message's page (CSRF-guarded
// forms), the standing correction and its undo, the Corrections page with what the account's
// filter learned, sender risk on the message page, and one 404 for another account's message.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DashboardClient, signUp } from "../support/dashboard-client.ts";
import { mime, receive } from "../support/mail-fixtures.ts";

let ctx: TestContext;
let server: HttpServer;
let owner: Fixture;
let alice: DashboardClient;
let bob: DashboardClient;
let messageId: string;

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  const base = `http://127.0.0.1:${server.port}`;
  owner = await makeAccount(ctx);
  const other = await makeAccount(ctx);
  const mailbox = await makeMailbox(ctx, owner, "corrections");
  alice = (await signUp(ctx, base, owner.accountId, "alice@example.com")).client;
  bob = (await signUp(ctx, base, other.accountId, "bob@example.com")).client;
  messageId = await receive(
    ctx,
    mailbox.id,
    mime({
      from: "Growth Events <events@growth-events.example>",
      to: mailbox.address,
      subject: "Webinar: the <b>pipeline</b> playbook",
      text: "Join our free masterclass on pipeline velocity next Tuesday. Save your seat today.",
    }),
  );
});

afterAll(async () => {
  await server?.stop();
  await ctx?.close();
});

test("the message page shows sender risk, decided_by and the correction buttons", async () => {
  const reply = await alice.get(`/dashboard/mail/${messageId}`);
  expect(reply.status).toBe(200);
  expect(reply.text).toContain("Sender risk");
  expect(reply.text).toContain(`action="/dashboard/mail/${messageId}/feedback"`);
  expect(reply.text).toContain('name="verdict" value="spam"');
  expect(reply.text).toContain("Webinar: the &lt;b&gt;pipeline&lt;/b&gt; playbook");
});

test("a correction without the CSRF token is refused; with it, it stands, teaches the filter, and undo takes it back", async () => {
  const forged = await alice.post(`/dashboard/mail/${messageId}/feedback`, { verdict: "spam" });
  expect(forged.status).toBe(403);
  expect((await ctx.sql`select 1 from message_feedback`).length).toBe(0);

  const given = await alice.act(`/dashboard/mail/${messageId}`, `/dashboard/mail/${messageId}/feedback`, { verdict: "spam" });
  expect(given.status).toBe(303);
  const [row] = await ctx.sql`select verdict, source, trained from message_feedback where undone_at is null`;
  expect(row).toEqual({ verdict: "spam", source: "dashboard", trained: "spam" });
  const after = await alice.get(`/dashboard/mail/${messageId}`);
  expect(after.text).toContain("counted as spam by this account");
  expect(after.text).toContain(`action="/dashboard/mail/${messageId}/feedback/undo"`);

  const corrections = await alice.get("/dashboard/corrections");
  expect(corrections.status).toBe(200);
  expect(corrections.text).toMatch(/learned from\s*<strong>1<\/strong> spam/);
  expect(corrections.text).toContain("Webinar: the &lt;b&gt;pipeline&lt;/b&gt; playbook");

  const undone = await alice.act("/dashboard/corrections", `/dashboard/mail/${messageId}/feedback/undo`, {
    axis: "spam",
    back: "corrections",
  });
  expect(undone.status).toBe(303);
  expect(undone.headers.get("location")).toBe("/dashboard/corrections");
  expect((await ctx.sql`select 1 from message_feedback where undone_at is null`).length).toBe(0);
  const [{ spam }] = await ctx.sql`select spam_messages as spam from account_learning where account_id = ${owner.accountId}`;
  expect(spam).toBe(0);
  expect((await alice.get("/dashboard/corrections")).text).toMatch(/learned from\s*<strong>0<\/strong> spam/);
});

test("another account's user gets the not-found page and records nothing", async () => {
  const view = await bob.get(`/dashboard/mail/${messageId}`);
  expect(view.status).toBe(404);
  const attempt = await bob.act("/dashboard/corrections", `/dashboard/mail/${messageId}/feedback`, { verdict: "spam" });
  expect(attempt.status).toBe(404);
  expect((await ctx.sql`select 1 from message_feedback where undone_at is null`).length).toBe(0);
});
