// Cross-tenant and cross-mailbox probes, bound keys on every class, and how secrets are kept.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sha256 } from "../../src/secrets.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";

const SINGLE_MAILBOX = '{"error":"this api key is scoped to a single mailbox","code":"key_scope"}';

let dns: DnsServer;
let ctx: TestContext;
let alice: Fixture;
let bob: Fixture;
let aliceMailbox: { id: string; address: string };
let aliceSecond: { id: string; address: string };
let bobMailbox: { id: string; address: string };
let aliceDomain: string;
let bobDomain: string;

beforeAll(async () => {
  dns = await startDnsServer({});
  ctx = await makeTestContext({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: "500" });
  alice = await makeAccount(ctx, { plan: "paid" });
  bob = await makeAccount(ctx, { plan: "paid" });
  aliceMailbox = await makeMailbox(ctx, alice, "alice-one");
  aliceSecond = await makeMailbox(ctx, alice, "alice-two");
  bobMailbox = await makeMailbox(ctx, bob, "bob-one");
  aliceDomain = (await ctx.request("POST", "/api/v1/domains", { key: alice.key, body: { name: "alice.example" } })).body.id;
  bobDomain = (await ctx.request("POST", "/api/v1/domains", { key: bob.key, body: { name: "bob.example" } })).body.id;
});

afterAll(async () => {
  await ctx.close();
  await dns.close();
});

describe("a mailbox-bound key on the account plane and on mailbox creation", () => {
  const refused: [string, string, () => string, unknown?][] = [
    ["POST /api/v1/mailboxes", "POST", () => "/api/v1/mailboxes", {}],
    ["GET /api/v1/domains", "GET", () => "/api/v1/domains"],
    ["POST /api/v1/domains", "POST", () => "/api/v1/domains", { name: "bound.example" }],
    ["POST /api/v1/domains/{id}/verify", "POST", () => `/api/v1/domains/${aliceDomain}/verify`],
  ];
  for (const scope of ["api", "mcp"] as const) {
    for (const [name, method, path, body] of refused) {
      test(`${scope} key bound to a mailbox on ${name} → 403 key_scope single mailbox`, async () => {
        const key = await makeKey(ctx, { accountId: alice.accountId, scope, mailboxId: aliceMailbox.id });
        const response = await ctx.request(method, path(), { key, body });
        expect({ status: response.status, text: response.text }).toEqual({ status: 403, text: SINGLE_MAILBOX });
      });
    }
  }

  test("a bound bootstrap key cannot create mailboxes", async () => {
    const key = await makeKey(ctx, { accountId: alice.accountId, scope: "bootstrap", mailboxId: aliceMailbox.id });
    const response = await ctx.request("POST", "/api/v1/mailboxes", { key, body: { slug: "via-bound-bootstrap" } });
    expect({ status: response.status, text: response.text }).toEqual({ status: 403, text: SINGLE_MAILBOX });
    const [row] = await ctx.sql`select count(*)::int as n from mailboxes where local_part = 'agent-via-bound-bootstrap'`;
    expect(row!.n).toBe(0);
  });

  test("a bound bootstrap key on the account plane is refused for its scope first", async () => {
    const key = await makeKey(ctx, { accountId: alice.accountId, scope: "bootstrap", mailboxId: aliceMailbox.id });
    const response = await ctx.request("GET", "/api/v1/domains", { key });
    expect({ status: response.status, text: response.text }).toEqual({
      status: 403,
      text: `{"error":"scope 'bootstrap' not permitted for this endpoint"}`,
    });
  });

  test("the bound key's refusal creates no domain", async () => {
    const [row] = await ctx.sql`select count(*)::int as n from domains where name = 'bound.example'`;
    expect(row!.n).toBe(0);
  });
});

describe("GET /api/v1/mailboxes never shows another mailbox or account", () => {
  test("a bound key sees only its own mailbox, even when newer ones exist and limit allows more", async () => {
    const key = await makeKey(ctx, { accountId: alice.accountId, scope: "api", mailboxId: aliceMailbox.id });
    await makeMailbox(ctx, alice, "alice-newest");
    const response = await ctx.request("GET", "/api/v1/mailboxes?limit=1000", { key });
    expect(response.status).toBe(200);
    expect(response.body.mailboxes.map((m: { id: string }) => m.id)).toEqual([aliceMailbox.id]);
  });

  test("an account-wide key sees its own account's mailboxes and none of another's", async () => {
    const response = await ctx.request("GET", "/api/v1/mailboxes", { key: bob.key });
    expect(response.body.mailboxes.map((m: { id: string }) => m.id)).toEqual([bobMailbox.id]);
    const aliceIds = (await ctx.request("GET", "/api/v1/mailboxes", { key: alice.key })).body.mailboxes.map((m: { id: string }) => m.id);
    expect(aliceIds).toContain(aliceMailbox.id);
    expect(aliceIds).toContain(aliceSecond.id);
    expect(aliceIds).not.toContain(bobMailbox.id);
  });
});

describe("cross-account domain ids", () => {
  test("verifying another account's domain is byte-identical to verifying a missing id", async () => {
    const foreign = await ctx.request("POST", `/api/v1/domains/${bobDomain}/verify`, { key: alice.key });
    const missing = await ctx.request("POST", "/api/v1/domains/dom_000000000000000000000000/verify", { key: alice.key });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe('{"error":"not found"}');
    expect(missing.status).toBe(404);
    expect(missing.text).toBe(foreign.text);
    expect(foreign.headers.get("content-type")).toBe(missing.headers.get("content-type"));
  });

  test("the probe did not touch the other account's domain", async () => {
    const [row] = await ctx.sql`select last_checked_at from domains where id = ${bobDomain}`;
    expect(row!.last_checked_at).toBeNull();
  });

  test("GET /api/v1/domains lists only the caller's domains", async () => {
    const alices = (await ctx.request("GET", "/api/v1/domains", { key: alice.key })).body.domains;
    expect(alices.map((d: { id: string }) => d.id)).toEqual([aliceDomain]);
  });

  test("registering a name another account holds gives a separate registration with its own key", async () => {
    const response = await ctx.request("POST", "/api/v1/domains", { key: alice.key, body: { name: "bob.example" } });
    expect(response.status).toBe(200);
    expect(response.body.id).not.toBe(bobDomain);
    const [theirs] = await ctx.sql`select dkim_public_key from domains where id = ${bobDomain}`;
    const [ours] = await ctx.sql`select dkim_public_key from domains where id = ${response.body.id}`;
    expect(ours!.dkim_public_key).not.toBe(theirs!.dkim_public_key);
  });
});

describe("keys at rest", () => {
  test("a secret is svc_ plus at least 32 random bytes (43 base64url characters)", async () => {
    const a = await makeKey(ctx, { accountId: alice.accountId, scope: "api" });
    const b = await makeKey(ctx, { accountId: alice.accountId, scope: "api" });
    expect(a).toMatch(/^svc_[A-Za-z0-9_-]{43,}$/);
    expect(a).not.toBe(b);
  });

  test("only the SHA-256 of the secret is stored; no column holds the secret", async () => {
    const secret = await makeKey(ctx, { accountId: alice.accountId, scope: "mcp", name: "at-rest" });
    const [row] = await ctx.sql`select * from api_keys where name = 'at-rest'`;
    expect(Buffer.from(row!.key_hash)).toEqual(Buffer.from(await sha256(secret)));
    const stored = JSON.stringify(row, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v));
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(4));
    // The hint is a short prefix for humans, not enough of the secret to matter.
    expect(row!.key_hint.length).toBeLessThanOrEqual(10);
  });

  test("a key of one account acts only on that account (mailboxes land in the key's account)", async () => {
    const response = await ctx.request("POST", "/api/v1/mailboxes", { key: bob.key, body: { slug: "made-by-bob" } });
    const [row] = await ctx.sql`select account_id from mailboxes where id = ${response.body.id}`;
    expect(row!.account_id).toBe(bob.accountId);
  });
});
