// The auth matrix, admitted side: every scope an endpoint class accepts gets through, with the
// route's documented success status and body shape. Refusals live in auth.error and auth.security.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Scope } from "../../src/core/principal.ts";
import { endpointClasses } from "../../src/request/auth.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";

let dns: DnsServer;
let ctx: TestContext;
let paid: Fixture;
let own: { id: string; address: string };
let other: { id: string; address: string };
let domainId: string;
const keys = {} as Record<Scope, string>;

beforeAll(async () => {
  // An empty zone: verify must never reach the outside world's DNS.
  dns = await startDnsServer({});
  ctx = await makeTestContext({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: "500" });
  paid = await makeAccount(ctx, { plan: "paid" });
  for (const scope of ["bootstrap", "api", "mcp"] as const) keys[scope] = await makeKey(ctx, { accountId: paid.accountId, scope });
  own = await makeMailbox(ctx, paid, "own");
  other = await makeMailbox(ctx, paid, "other");
  const created = await ctx.request("POST", "/api/v1/domains", { key: paid.key, body: { name: "happy.example" } });
  domainId = created.body.id;
});

afterAll(async () => {
  await ctx.close();
  await dns.close();
});

describe("the endpoint-class table", () => {
  test("says exactly which scopes each class admits and how bound keys are treated", () => {
    expect(endpointClasses.mailboxCreate).toEqual({ scopes: ["bootstrap", "api", "mcp"], boundKeys: "reject", capability: null });
    expect(endpointClasses.accountPlane).toEqual({ scopes: ["api", "mcp"], boundKeys: "reject", capability: null });
    expect(endpointClasses.mailboxList).toEqual({ scopes: ["api", "mcp"], boundKeys: "own", capability: "read" });
  });
});

describe("POST /api/v1/mailboxes (mailboxCreate) admits bootstrap, api and mcp", () => {
  for (const scope of ["bootstrap", "api", "mcp"] as const) {
    test(`${scope} key → 201 {id, address}`, async () => {
      const response = await ctx.request("POST", "/api/v1/mailboxes", { key: keys[scope], body: { slug: `by-${scope}` } });
      expect(response.status).toBe(201);
      expect(Object.keys(response.body).sort()).toEqual(["address", "id"]);
      expect(response.body.address).toBe(`agent-by-${scope}@agents.localhost`);
      expect(response.body.id).toMatch(/^mbx_[0-9a-z]{24}$/);
    });
  }
});

describe("account plane (domains) admits api and mcp", () => {
  for (const scope of ["api", "mcp"] as const) {
    test(`${scope} key: GET /api/v1/domains → 200 {domains}`, async () => {
      const response = await ctx.request("GET", "/api/v1/domains", { key: keys[scope] });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(["domains"]);
      expect(response.body.domains).toContainEqual({
        id: domainId,
        name: "happy.example",
        status: "pending",
        created_at: expect.any(String),
      });
    });

    test(`${scope} key: POST /api/v1/domains → 200 DomainCreated`, async () => {
      const response = await ctx.request("POST", "/api/v1/domains", { key: keys[scope], body: { name: `${scope}.example` } });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(["id", "name", "records", "status"]);
      expect(response.body.name).toBe(`${scope}.example`);
      expect(response.body.status).toBe("pending");
    });

    test(`${scope} key: POST /api/v1/domains/{id}/verify → 200 {status}`, async () => {
      const response = await ctx.request("POST", `/api/v1/domains/${domainId}/verify`, { key: keys[scope] });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: "pending" });
    });
  }
});

describe("GET /api/v1/mailboxes (mailboxList) admits api and mcp", () => {
  for (const scope of ["api", "mcp"] as const) {
    test(`${scope} account-wide key sees every mailbox of the account`, async () => {
      const response = await ctx.request("GET", "/api/v1/mailboxes", { key: keys[scope] });
      expect(response.status).toBe(200);
      const ids = response.body.mailboxes.map((m: { id: string }) => m.id);
      expect(ids).toContain(own.id);
      expect(ids).toContain(other.id);
    });

    test(`${scope} key bound to a mailbox sees exactly that mailbox`, async () => {
      const bound = await makeKey(ctx, { accountId: paid.accountId, scope, mailboxId: own.id });
      const response = await ctx.request("GET", "/api/v1/mailboxes", { key: bound });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        mailboxes: [{ id: own.id, address: own.address, display_name: null, created_at: expect.any(String), paused: false }],
      });
    });
  }
});

describe("capabilities restrict only the classes that name them", () => {
  test("can_send false does not stop mailbox creation, listing or domains", async () => {
    const key = await makeKey(ctx, { accountId: paid.accountId, scope: "api", canSend: false });
    expect((await ctx.request("POST", "/api/v1/mailboxes", { key, body: {} })).status).toBe(201);
    expect((await ctx.request("GET", "/api/v1/mailboxes", { key })).status).toBe(200);
    expect((await ctx.request("GET", "/api/v1/domains", { key })).status).toBe(200);
    expect((await ctx.request("POST", `/api/v1/domains/${domainId}/verify`, { key })).status).toBe(200);
  });

  test("can_read false does not stop mailbox creation or account-plane writes, but stops GET /domains", async () => {
    // The contract: "can_read governs GET" — on the account plane too; writes there carry no capability.
    const key = await makeKey(ctx, { accountId: paid.accountId, scope: "mcp", canRead: false });
    expect((await ctx.request("POST", "/api/v1/mailboxes", { key, body: {} })).status).toBe(201);
    expect((await ctx.request("POST", "/api/v1/domains", { key, body: { name: "noread.example" } })).status).toBe(200);
    const list = await ctx.request("GET", "/api/v1/domains", { key });
    expect({ status: list.status, body: list.body }).toEqual({
      status: 403,
      body: { error: "this api key cannot read messages", code: "key_scope" },
    });
  });

  test("a bootstrap key with both capabilities off still creates mailboxes", async () => {
    const key = await makeKey(ctx, { accountId: paid.accountId, scope: "bootstrap", canRead: false, canSend: false });
    expect((await ctx.request("POST", "/api/v1/mailboxes", { key })).status).toBe(201);
  });
});

describe("the bearer header", () => {
  test("the scheme name is case-insensitive (RFC 7235)", async () => {
    for (const scheme of ["bearer", "BEARER", "Bearer"]) {
      const response = await ctx.request("GET", "/api/v1/domains", { headers: { authorization: `${scheme} ${keys.api}` } });
      expect(response.status).toBe(200);
    }
  });

  test("surrounding whitespace is tolerated (HTTP strips it from header values)", async () => {
    const response = await ctx.request("GET", "/api/v1/domains", { headers: { authorization: `  Bearer ${keys.api}  ` } });
    expect(response.status).toBe(200);
  });

  test("the same key works on every request (no one-time use)", async () => {
    for (let i = 0; i < 3; i++) expect((await ctx.request("GET", "/api/v1/mailboxes", { key: keys.api })).status).toBe(200);
  });
});
