// POST /api/v1/domains and verify refusing what they cannot serve: the free plan, invalid names and
// unknown ids.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Fixture, TestContext } from "../support/context.ts";
import type { DnsServer } from "../support/dns-server.ts";
import { domainRequests, startDomainsWorld, stopDomainsWorld } from "../support/domains-world.ts";

let dns: DnsServer;
let ctx: TestContext;
let free: Fixture;
let paid: Fixture;

beforeAll(async () => {
  ({ dns, ctx, free, paid } = await startDomainsWorld());
});

afterAll(() => stopDomainsWorld({ dns, ctx }));

const { register, verify } = domainRequests(() => ctx);

describe("plan", () => {
  test("registering on the free plan is 403 custom domains require a paid plan", async () => {
    const response = await register(free.key, { name: "free.example" });
    expect({ status: response.status, text: response.text }).toEqual({
      status: 403,
      text: '{"error":"custom domains require a paid plan"}',
    });
    expect((await ctx.sql`select 1 from domains where name = 'free.example'`).length).toBe(0);
  });

  test("verifying on the free plan is 403, before the id is looked up", async () => {
    const response = await verify(free.key, "dom_000000000000000000000000");
    expect({ status: response.status, text: response.text }).toEqual({
      status: 403,
      text: '{"error":"custom domains require a paid plan"}',
    });
  });
});

describe("names", () => {
  const invalid = [
    "localhost",
    "-lead.example",
    "trail-.example",
    "a..example",
    ".example",
    "1.2.3.4",
    "exa mple.com",
    "ex_ample.com",
    "ünicode.example",
    `${"x".repeat(64)}.example`,
    "example.123",
    "http://example.com",
    "user@example.com",
    "*.example.com",
  ];
  for (const name of invalid) {
    test(`${JSON.stringify(name)} is 400 invalid domain name`, async () => {
      const response = await register(paid.key, { name });
      expect({ status: response.status, text: response.text }).toEqual({
        status: 400,
        text: '{"error":"name must be a valid domain name"}',
      });
    });
  }

  test("a name over 253 characters is 400", async () => {
    const response = await register(paid.key, { name: `${"abcdefghi.".repeat(26)}example` });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: "name must be 1 to 253 characters" });
  });

  test("missing, empty, non-string and extra fields are 400 naming the field", async () => {
    const cases: [unknown, string][] = [
      [{}, "name is required"],
      [{ name: "" }, "name must be 1 to 253 characters"],
      [{ name: 42 }, "name must be a string"],
      [{ name: null }, "name must be a string"],
      [{ name: "ok.example", dkim: true }, "unknown field 'dkim'"],
    ];
    for (const [body, error] of cases) {
      const response = await register(paid.key, body);
      expect({ body, status: response.status, json: response.body }).toEqual({ body, status: 400, json: { error } });
    }
  });

  test("the shared domain and its subdomains are refused", async () => {
    for (const name of ["agents.localhost", "AGENTS.localhost.", "team.agents.localhost"]) {
      const response = await register(paid.key, { name });
      expect({ name, status: response.status, body: response.body }).toEqual({
        name,
        status: 400,
        body: { error: "name must not be the shared domain or one of its subdomains" },
      });
    }
  });
});

describe("verify", () => {
  test("an unknown id is 404 domain not found", async () => {
    const response = await verify(paid.key, "dom_000000000000000000000000");
    expect({ status: response.status, text: response.text }).toEqual({ status: 404, text: '{"error":"not found"}' });
  });
});
