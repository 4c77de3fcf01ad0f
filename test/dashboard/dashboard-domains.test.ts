// The Domains page over real HTTP, against a real DNS server on loopback: adding a domain (paid
// plan only, core's validation), the records to publish with each one's seen/missing state after
// a verify, verification, the shared domain's DKIM record, CSRF on both forms, and one 404 for
// another account's domain.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sharedDomainKey } from "../../src/core/domains/dkim.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";
import { type DashboardClient, signUp } from "../support/dashboard-client.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";

const MX_HOST = "mx.mail-service.test";
let dns: DnsServer;
let ctx: TestContext;
let server: HttpServer;
let paid: Fixture;
let free: Fixture;
let rival: Fixture;
let owner: DashboardClient;
let freeUser: DashboardClient;
let rivalUser: DashboardClient;

type Record = { type: "MX" | "TXT"; name: string; value: string; priority?: number; purpose: string };

function publish(records: Record[], only: string[]): void {
  for (const record of records) {
    if (!only.includes(record.purpose)) continue;
    const entry = (dns.zone[record.name] ??= {});
    if (record.type === "MX") (entry.MX ??= []).push({ exchange: record.value, priority: record.priority ?? 10 });
    else (entry.TXT ??= []).push([record.value]);
  }
}

const state = (page: string, purpose: string) =>
  new RegExp(`<section class="card record-card" id="record-${purpose}">[\\s\\S]*?<span class="badge[^"]*">([^<]+)</span>`).exec(page)?.[1];

beforeAll(async () => {
  // Our MX host has an address: SPF is judged for it, as a receiver of our mail judges it.
  dns = await startDnsServer({ [MX_HOST]: { A: ["192.0.2.25"] } });
  ctx = await makeTestContext({ HTTP_PORT: "0", DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: "1000", MX_HOST });
  server = startHttpServer(ctx.svc, ctx.app);
  const base = `http://127.0.0.1:${server.port}`;
  paid = await makeAccount(ctx, { plan: "paid" });
  free = await makeAccount(ctx);
  rival = await makeAccount(ctx, { plan: "paid" });
  owner = (await signUp(ctx, base, paid.accountId, "paid@example.com")).client;
  freeUser = (await signUp(ctx, base, free.accountId, "free@example.com")).client;
  rivalUser = (await signUp(ctx, base, rival.accountId, "rival@example.com")).client;
});

afterAll(async () => {
  await server?.stop();
  await ctx?.close();
  await dns?.close();
});

describe("domains", () => {
  test("the free plan is told custom domains need a paid plan, and a forged add creates nothing", async () => {
    const page = await freeUser.get("/dashboard/domains");
    expect(page.text).toContain("Custom domains need a paid plan.");
    expect(page.text).not.toContain('action="/dashboard/domains"');
    const forged = await freeUser.act("/dashboard/keys", "/dashboard/domains", { name: "free.example" });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("Not added: custom domains require a paid plan.");
    expect((await ctx.sql`select 1 from domains where name = 'free.example'`).length).toBe(0);
  });

  test("add, publish part of the records, verify (missing named), publish the rest, verify (verified)", async () => {
    const added = await owner.act("/dashboard/domains", "/dashboard/domains", { name: " Mail.Example.ORG. " });
    expect(added.status).toBe(303);
    const location = added.headers.get("location")!;
    expect(location).toMatch(/^\/dashboard\/domains\/dom_[0-9a-z]+$/);
    const [domain] = await ctx.sql`select id, name, records from domains where account_id = ${paid.accountId}`;
    expect(domain!.name).toBe("mail.example.org");
    const records = domain!.records as Record[];

    const page = await owner.get(location);
    expect(page.status).toBe(200);
    for (const record of records) {
      expect(page.text).toContain(`<pre class="record">${record.name}</pre>`);
      expect(page.text).toContain(`<pre class="record">${record.value}</pre>`);
      expect(state(page.text, record.purpose)).toBe("not checked yet");
    }

    publish(records, ["inbound", "spf"]);
    const partial = await owner.act(location, `${location}/verify`);
    expect(partial.status).toBe(200);
    expect(partial.text).toContain("Not every record was seen yet; the domain is pending.");
    expect(state(partial.text, "inbound")).toBe("seen");
    expect(state(partial.text, "spf")).toBe("seen");
    expect(state(partial.text, "dkim")).toBe("missing");
    expect(partial.text).toContain("<small>ENOTFOUND: the name does not exist in DNS</small>");
    // The same states at a glance, one row per record, above the records themselves.
    const glance = /<table class="compact stack" id="records">([\s\S]*?)<\/table>/.exec(partial.text)![1]!;
    expect([...glance.matchAll(/<span class="badge[^"]*">([^<]+)<\/span>/g)].map((m) => m[1])).toEqual([
      "seen",
      "seen",
      "missing",
      "missing",
    ]);

    publish(records, ["dkim", "dmarc"]);
    const done = await owner.act(location, `${location}/verify`);
    expect(done.text).toContain("Every record was seen: the domain is verified.");
    expect(state(done.text, "dkim")).toBe("seen");
    expect((await owner.get("/dashboard/domains")).text).toMatch(
      /mail\.example\.org<\/a><\/td><td><span class="badge ok">verified<\/span>/,
    );
  });

  test("core's validation applies: an invalid name and the shared domain are refused with its message", async () => {
    const invalid = await owner.act("/dashboard/domains", "/dashboard/domains", { name: "not a domain" });
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain("Not added: name must be a valid domain name.");
    const shared = await owner.act("/dashboard/domains", "/dashboard/domains", { name: `x.${ctx.config.sharedDomain}` });
    expect(shared.status).toBe(400);
  });

  test("the shared domain's DKIM record is shown once the key exists", async () => {
    expect((await owner.get("/dashboard/domains")).text).toContain("has no DKIM key yet");
    const key = await sharedDomainKey(ctx.sql, ctx.config);
    const page = await owner.get("/dashboard/domains");
    expect(page.text).toContain(`<pre class="record">${key.selector}._domainkey.${ctx.config.sharedDomain}</pre>`);
    expect(page.text).toContain(`<pre class="record">v=DKIM1; k=rsa; p=${key.publicKey}</pre>`);
  });

  test("CSRF: add and verify without the session's token are refused and change nothing", async () => {
    const [domain] = await ctx.sql`select id, last_checked_at from domains where account_id = ${paid.accountId}`;
    const add = await owner.post("/dashboard/domains", { name: "csrf.example.org" });
    const wrong = await owner.post("/dashboard/domains", { name: "csrf.example.org", csrf: "forged" });
    const foreignToken = await owner.post("/dashboard/domains", {
      name: "csrf.example.org",
      csrf: (await rivalUser.get("/dashboard")).text.match(/name="csrf" value="([^"]+)"/)![1]!,
    });
    const verify = await owner.post(`/dashboard/domains/${domain!.id}/verify`, {});
    const origin = await owner.send(
      "POST",
      "/dashboard/domains",
      { name: "csrf2.example.org", csrf: (await owner.get("/dashboard")).text.match(/name="csrf" value="([^"]+)"/)![1]! },
      { origin: "https://evil.example" },
    );
    for (const reply of [add, wrong, foreignToken, verify, origin]) expect(reply.status).toBe(403);
    expect((await ctx.sql`select 1 from domains where name like 'csrf%'`).length).toBe(0);
    const [after] = await ctx.sql`select last_checked_at from domains where id = ${domain!.id}`;
    expect(after!.last_checked_at).toBe(domain!.last_checked_at);
  });

  test("another account's domain is the one 404 page, to view and to verify", async () => {
    const [domain] = await ctx.sql`select id from domains where account_id = ${paid.accountId} and name = 'mail.example.org'`;
    const foreign = await rivalUser.get(`/dashboard/domains/${domain!.id}`);
    const missing = await rivalUser.get("/dashboard/domains/dom_000000000000000000000000");
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    const verify = await rivalUser.act("/dashboard/domains", `/dashboard/domains/${domain!.id}/verify`);
    const verifyMissing = await rivalUser.act("/dashboard/domains", "/dashboard/domains/dom_000000000000000000000000/verify");
    expect(verify.status).toBe(404);
    expect(verify.text).toBe(verifyMissing.text);
  });
});
