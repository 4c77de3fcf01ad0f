// The People page over real HTTP: adding a person (a generated password shown once, which then
// signs in), removing one (their sessions end), changing one's own password (current password
// checked, createUser's rule, other sessions end), the audit trail of actions, CSRF on every form,
// and one 404 for another account's user.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createUser } from "../../src/core/accounts/users.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";
import { DASHBOARD_PASSWORD, DashboardClient, hiddenField, signUp } from "../support/dashboard-client.ts";

const PASSWORD = DASHBOARD_PASSWORD;
let ctx: TestContext;
let server: HttpServer;
let base: string;
let owner: Fixture;
let other: Fixture;
let alice: DashboardClient;
let mallory: DashboardClient;
let malloryId: string;

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `http://127.0.0.1:${server.port}`;
  owner = await makeAccount(ctx);
  other = await makeAccount(ctx);
  alice = (await signUp(ctx, base, owner.accountId, "alice@example.com")).client;
  ({ id: malloryId, client: mallory } = await signUp(ctx, base, other.accountId, "mallory@example.com"));
});

afterAll(async () => {
  await server?.stop();
  await ctx?.close();
});

describe("people", () => {
  test("add a person: the generated password is shown once and signs in; the list shows them", async () => {
    const added = await alice.act("/dashboard/people", "/dashboard/people", { email: " Bob@Example.com " });
    expect(added.status).toBe(200);
    const password = /<code class="secret-value">([^<]+)<\/code>/.exec(added.text)![1]!;
    expect(password.length).toBeGreaterThanOrEqual(12);
    expect(added.text).toContain("bob@example.com can sign in now");
    const bob = await DashboardClient.signIn(base, "bob@example.com", password);
    expect((await bob.get("/dashboard/people")).text).toContain("alice@example.com");
    const again = await alice.get("/dashboard/people");
    expect(again.text).not.toContain(password);
    expect(again.text).toContain("bob@example.com");
    // Another account never sees them.
    expect((await mallory.get("/dashboard/people")).text).not.toContain("bob@example.com");
  });

  test("adding an existing email or a non-address is refused with core's message", async () => {
    const dup = await alice.act("/dashboard/people", "/dashboard/people", { email: "mallory@example.com" });
    expect(dup.status).toBe(409);
    expect(dup.text).toContain("Not added: a user with this email already exists.");
    const bad = await alice.act("/dashboard/people", "/dashboard/people", { email: "not an address" });
    expect(bad.status).toBe(400);
  });

  test("remove a person: their sessions end; nobody can remove themself", async () => {
    const [carolRow] = [await createUser(ctx.sql, { accountId: owner.accountId, email: "carol@example.com", password: PASSWORD })];
    const carol = await DashboardClient.signIn(base, "carol@example.com", PASSWORD);
    expect((await carol.get("/dashboard")).status).toBe(200);
    const removed = await alice.act("/dashboard/people", `/dashboard/people/${carolRow.id}/remove`);
    expect(removed.status).toBe(303);
    expect(removed.headers.get("location")).toBe("/dashboard/people?done=person_removed");
    expect((await carol.get("/dashboard")).status).toBe(303);
    const [self] = await ctx.sql`select id from dashboard_users where email = 'alice@example.com'`;
    const selfRemove = await alice.act("/dashboard/people", `/dashboard/people/${self!.id}/remove`);
    expect(selfRemove.status).toBe(400);
    expect(selfRemove.text).toContain("Not removed: you cannot remove yourself.");
  });

  test("another account's user is the one 404 page and stays", async () => {
    const foreign = await alice.act("/dashboard/people", `/dashboard/people/${malloryId}/remove`);
    const missing = await alice.act("/dashboard/people", "/dashboard/people/usr_000000000000000000000000/remove");
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    expect((await ctx.sql`select 1 from dashboard_users where id = ${malloryId}`).length).toBe(1);
  });

  test("change own password: the current one is checked, the rule holds, other sessions end, this one stays", async () => {
    const second = await DashboardClient.signIn(base, "alice@example.com", PASSWORD);
    const wrong = await alice.act("/dashboard/people", "/dashboard/people/password", {
      current: "not it at all",
      next: "a brand new password",
      again: "a brand new password",
    });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain("The current password is not right.");
    const short = await alice.act("/dashboard/people", "/dashboard/people/password", { current: PASSWORD, next: "short", again: "short" });
    expect(short.status).toBe(400);
    expect(short.text).toContain("password must be at least 12 characters");
    const differ = await alice.act("/dashboard/people", "/dashboard/people/password", {
      current: PASSWORD,
      next: "a brand new password",
      again: "a brand new passwort",
    });
    expect(differ.text).toContain("The two new passwords differ.");
    const changed = await alice.act("/dashboard/people", "/dashboard/people/password", {
      current: PASSWORD,
      next: "a brand new password",
      again: "a brand new password",
    });
    expect(changed.status).toBe(303);
    expect((await alice.get("/dashboard/people")).status).toBe(200);
    expect((await second.get("/dashboard")).status).toBe(303);
    await expect(DashboardClient.signIn(base, "alice@example.com", PASSWORD)).rejects.toThrow();
    await DashboardClient.signIn(base, "alice@example.com", "a brand new password");
  });

  test("CSRF: every People form without the session's token, or from another origin, is 403 and changes nothing", async () => {
    const [bob] = await ctx.sql`select id from dashboard_users where email = 'bob@example.com'`;
    const token = hiddenField((await alice.get("/dashboard/people")).text, "csrf");
    const forms: [string, Record<string, string>][] = [
      ["/dashboard/people", { email: "eve@example.com" }],
      [`/dashboard/people/${bob!.id}/remove`, {}],
      ["/dashboard/people/password", { current: "a brand new password", next: "taken over password", again: "taken over password" }],
    ];
    for (const [path, form] of forms) {
      expect((await alice.post(path, form)).status).toBe(403);
      expect((await alice.post(path, { ...form, csrf: "forged" })).status).toBe(403);
      expect((await alice.send("POST", path, { ...form, csrf: token }, { origin: "https://evil.example" })).status).toBe(403);
    }
    expect((await ctx.sql`select 1 from dashboard_users where email = 'eve@example.com'`).length).toBe(0);
    expect((await ctx.sql`select 1 from dashboard_users where id = ${bob!.id}`).length).toBe(1);
    await DashboardClient.signIn(base, "alice@example.com", "a brand new password");
  });

  test("the audit trail lists this account's actions with outcome and target, never another account's or a password", async () => {
    const page = await alice.get("/dashboard/people");
    const audit = /<table class="compact stack" id="audit">([\s\S]*?)<\/table>/.exec(page.text)![1]!;
    expect(audit).toMatch(/<code>person\.add<\/code><\/td><td><span class="badge ok">ok<\/span>/);
    expect(audit).toMatch(/<code>person\.remove<\/code><\/td><td><span class="badge warn">not_found<\/span>/);
    expect(audit).toMatch(
      /<code>password\.change<\/code><\/td><td><span class="badge warn">rejected<\/span><\/td><td data-label="On">—<\/td><td data-label="From">[^<]*<\/td><td><small>reason=wrong_current status=403<\/small>/,
    );
    expect(audit).toContain("reason=csrf");
    expect(audit).toContain("reason=foreign_origin");
    expect(audit).not.toContain("brand new");
    expect(audit).not.toContain(PASSWORD);
    // Newest first: the CSRF test's closing sign-in heads the list, its refused password change next.
    const [first, second] = [...audit.matchAll(/<tr><td>[\s\S]*?<\/tr>/g)].map((m) => m[0]);
    expect(first).toMatch(/<code>login<\/code><\/td><td><span class="badge ok">ok<\/span>/);
    expect(second).toContain("<code>password.change</code>");
    const other = await mallory.get("/dashboard/people");
    expect(other.text).not.toContain('rel="next"');
    expect(other.text).not.toContain("person.add");
  });

  test("the audit trail pages 50 at a time, newest first, without repeats", async () => {
    const [user] = await ctx.sql`select id from dashboard_users where email = 'mallory@example.com'`;
    for (let i = 0; i < 60; i++) {
      await ctx.sql`insert into dashboard_audit (account_id, user_id, user_email, action, outcome, target_id) values (${other.accountId}, ${user!.id}, 'mallory@example.com', ${`demo.${i}`}, 'ok', null)`;
    }
    const first = await mallory.get("/dashboard/people");
    const firstActions = [...first.text.matchAll(/<code>(demo\.\d+)<\/code>/g)].map((m) => m[1]);
    expect(firstActions.length).toBe(50);
    expect(firstActions[0]).toBe("demo.59");
    const next = /href="([^"]+)" rel="next"/.exec(first.text)![1]!.replaceAll("&amp;", "&");
    const second = await mallory.get(next);
    const secondActions = [...second.text.matchAll(/<code>(demo\.\d+)<\/code>/g)].map((m) => m[1]);
    expect(secondActions).toEqual(Array.from({ length: 10 }, (_, i) => `demo.${9 - i}`));
    // A cursor is only a position: it cannot reach another account's entries.
    expect((await alice.get(next)).text).not.toContain("demo.");
  });
});
