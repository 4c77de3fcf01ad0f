// The auth matrix, refused side: credentials that cannot authenticate (401) and scopes an
// endpoint class does not admit (403), each with the exact bytes docs/api.md and docs/decisions.md give.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { revokeKey } from "../../src/core/accounts/keys.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";

const MISSING = '{"error":"missing bearer token"}';
const INVALID = '{"error":"invalid api key"}';
const BOOTSTRAP_REFUSED = `{"error":"scope 'bootstrap' not permitted for this endpoint"}`;

let dns: DnsServer;
let ctx: TestContext;
let paid: Fixture;
let domainId: string;

type Route = { name: string; method: string; path: () => string; body?: unknown };
// Every /api/v1 endpoint of the foundation, with a body that would otherwise succeed.
const routes: Route[] = [
  { name: "POST /api/v1/mailboxes", method: "POST", path: () => "/api/v1/mailboxes", body: {} },
  { name: "GET /api/v1/mailboxes", method: "GET", path: () => "/api/v1/mailboxes" },
  { name: "GET /api/v1/domains", method: "GET", path: () => "/api/v1/domains" },
  { name: "POST /api/v1/domains", method: "POST", path: () => "/api/v1/domains", body: { name: "refused.example" } },
  { name: "POST /api/v1/domains/{id}/verify", method: "POST", path: () => `/api/v1/domains/${domainId}/verify` },
];

beforeAll(async () => {
  dns = await startDnsServer({});
  ctx = await makeTestContext({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: "500" });
  paid = await makeAccount(ctx, { plan: "paid" });
  domainId = (await ctx.request("POST", "/api/v1/domains", { key: paid.key, body: { name: "error.example" } })).body.id;
});

afterAll(async () => {
  await ctx.close();
  await dns.close();
});

async function call(route: Route, headers: Record<string, string>, body = route.body) {
  return ctx.request(route.method, route.path(), { headers, body });
}

function expectError(response: { status: number; text: string; headers: Headers }, status: number, text: string) {
  expect({ status: response.status, text: response.text }).toEqual({ status, text });
  expect(response.headers.get("content-type")).toStartWith("application/json");
}

describe("401 missing bearer token: no header or a malformed one", () => {
  const malformed: [string, (key: string) => string][] = [
    ["Basic credentials", () => "Basic dXNlcjpwYXNz"],
    ["a bare word", () => "x"],
    ["Bearer with nothing after it", () => "Bearer"],
    ["Bearer and a space", () => "Bearer "],
    ["two spaces before a valid key", (key) => `Bearer  ${key}`],
    ["a valid key without the scheme", (key) => key],
    ["Token scheme with a valid key", (key) => `Token ${key}`],
    ["two tokens", (key) => `Bearer ${key} ${key}`],
    ["characters outside the token alphabet", () => "Bearer svc_abc!def"],
    ["a comma-joined second credential", (key) => `Bearer ${key}, Basic eA==`],
    ["a token longer than 512 characters", () => `Bearer svc_${"a".repeat(600)}`],
  ];

  for (const route of routes) {
    test(`${route.name} without an Authorization header`, async () => {
      expectError(await call(route, {}), 401, MISSING);
    });
  }

  for (const [label, header] of malformed) {
    test(`${label}`, async () => {
      for (const route of routes) expectError(await call(route, { authorization: header(paid.key) }), 401, MISSING);
    });
  }
});

describe("401 invalid api key: well-formed but unknown or revoked", () => {
  test("an unknown svc_ key on every route", async () => {
    for (const route of routes) expectError(await call(route, { authorization: `Bearer svc_${"A".repeat(43)}` }), 401, INVALID);
  });

  test("a token without the svc_ prefix is unknown, not malformed", async () => {
    expectError(await call(routes[1]!, { authorization: "Bearer abcdef0123456789" }), 401, INVALID);
  });

  test("a real key with one character changed is unknown", async () => {
    const last = paid.key.at(-1) === "A" ? "B" : "A";
    expectError(await call(routes[2]!, { authorization: `Bearer ${paid.key.slice(0, -1)}${last}` }), 401, INVALID);
  });

  test("a revoked key is answered exactly like an unknown one, on every route", async () => {
    const key = await makeKey(ctx, { accountId: paid.accountId, scope: "api" });
    const keyId = (await ctx.sql`select id from api_keys where key_hint = ${key.slice(0, 10)} and account_id = ${paid.accountId}`)[0]!.id;
    expect((await ctx.request("GET", "/api/v1/mailboxes", { key })).status).toBe(200);
    expect(await revokeKey(ctx.sql, paid, keyId)).toBe(true);
    for (const route of routes) expectError(await call(route, { authorization: `Bearer ${key}` }), 401, INVALID);
  });

  test("revoking twice reports nothing left to revoke, and the key stays refused", async () => {
    const key = await makeKey(ctx, { accountId: paid.accountId, scope: "mcp" });
    const [{ id }] = await ctx.sql`select id from api_keys where key_hint = ${key.slice(0, 10)} and account_id = ${paid.accountId}`;
    expect(await revokeKey(ctx.sql, paid, id)).toBe(true);
    expect(await revokeKey(ctx.sql, paid, id)).toBe(false);
    expectError(await ctx.request("POST", "/api/v1/mailboxes", { key, body: {} }), 401, INVALID);
  });
});

describe("403 scope not permitted: a bootstrap key anywhere but POST /mailboxes", () => {
  for (const route of routes.filter((r) => r.name !== "POST /api/v1/mailboxes")) {
    test(`bootstrap on ${route.name}`, async () => {
      const key = await makeKey(ctx, { accountId: paid.accountId, scope: "bootstrap" });
      const response = await call(route, { authorization: `Bearer ${key}` });
      // docs/decisions.md: 403, the contract's text, and no `code` field.
      expectError(response, 403, BOOTSTRAP_REFUSED);
    });
  }

  test("nothing was created by the refused bootstrap POST /domains", async () => {
    const [row] = await ctx.sql`select count(*)::int as n from domains where name = 'refused.example'`;
    expect(row!.n).toBe(0);
  });
});

describe("403 key_scope: can_read false on GET /mailboxes", () => {
  for (const scope of ["api", "mcp"] as const) {
    test(`${scope} account-wide key with can_read false`, async () => {
      const key = await makeKey(ctx, { accountId: paid.accountId, scope, canRead: false });
      expectError(
        await ctx.request("GET", "/api/v1/mailboxes", { key }),
        403,
        '{"error":"this api key cannot read messages","code":"key_scope"}',
      );
    });
  }

  test("a bound key with can_read false is refused too, not shown its own mailbox", async () => {
    const mailbox = await makeMailbox(ctx, paid);
    const key = await makeKey(ctx, { accountId: paid.accountId, scope: "api", mailboxId: mailbox.id, canRead: false });
    expectError(
      await ctx.request("GET", "/api/v1/mailboxes", { key }),
      403,
      '{"error":"this api key cannot read messages","code":"key_scope"}',
    );
  });
});

describe("authentication and authorization come before the body", () => {
  const postMailboxes = routes[0]!;
  const postDomains = routes[3]!;

  test("no key and malformed JSON → 401, not 400", async () => {
    expectError(await call(postMailboxes, {}, "{not json"), 401, MISSING);
    expectError(await call(postDomains, {}, "{not json"), 401, MISSING);
  });

  test("unknown key and malformed JSON → 401 invalid api key", async () => {
    expectError(await call(postMailboxes, { authorization: "Bearer svc_nope" }, "{not json"), 401, INVALID);
  });

  test("no key and an unknown field or a bad slug → 401, not 400", async () => {
    expectError(await call(postMailboxes, {}, { bogus: true }), 401, MISSING);
    expectError(await call(postMailboxes, {}, { slug: "BAD SLUG" }), 401, MISSING);
    expectError(await call(postDomains, {}, { name: 5 }), 401, MISSING);
  });

  test("a bootstrap key and malformed JSON on POST /domains → 403 scope, not 400", async () => {
    const key = await makeKey(ctx, { accountId: paid.accountId, scope: "bootstrap" });
    expectError(await call(postDomains, { authorization: `Bearer ${key}` }, "{not json"), 403, BOOTSTRAP_REFUSED);
  });

  test("no key on verify of a missing id → 401, not 404", async () => {
    expectError(await ctx.request("POST", "/api/v1/domains/dom_missing/verify"), 401, MISSING);
  });

  test("no key and a bad limit on GET /mailboxes → 401, not 400", async () => {
    expectError(await ctx.request("GET", "/api/v1/mailboxes?limit=abc"), 401, MISSING);
  });

  test("a valid key and malformed JSON is then the body's 400", async () => {
    expectError(
      await call(postMailboxes, { authorization: `Bearer ${paid.key}` }, "{not json"),
      400,
      '{"error":"request body is not valid JSON"}',
    );
  });
});
