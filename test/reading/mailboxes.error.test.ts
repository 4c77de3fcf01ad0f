// POST /api/v1/mailboxes and GET /api/v1/mailboxes refusing what they cannot serve: slug rules,
// body validation, custom domains that are not usable, address conflicts, and bad list queries.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateAccount } from "../../src/core/accounts/accounts.ts";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxesApi } from "../support/mailboxes-api.ts";

const SLUG_ERROR = '{"error":"slug must match ^[a-z0-9][a-z0-9-]{0,40}$"}';

let ctx: TestContext;
let free: Fixture;
let paid: Fixture;
let stranger: Fixture;

beforeAll(async () => {
  ctx = await makeTestContext();
  free = await makeAccount(ctx);
  paid = await makeAccount(ctx, { plan: "paid" });
  stranger = await makeAccount(ctx, { plan: "paid" });
});

afterAll(() => ctx.close());

const { create, list, domainOf } = mailboxesApi(() => ctx);

describe("slug", () => {
  test("42 characters is rejected naming the rule", async () => {
    const response = await create(free.key, { slug: "a" + "b".repeat(41) });
    expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: SLUG_ERROR });
  });

  const rejected = ["Upper", "ABC", "-leading", "", "under_score", "dot.ted", "sp ace", "ünï", "a@b", "a\nb"];
  for (const slug of rejected) {
    test(`${JSON.stringify(slug)} is rejected with 400`, async () => {
      const response = await create(free.key, { slug });
      expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: SLUG_ERROR });
    });
  }

  test("a slug that is not a string is rejected", async () => {
    for (const slug of [5, true, ["abc"], { a: 1 }]) {
      const response = await create(free.key, { slug });
      expect(response.status).toBe(400);
      expect(response.body.error).toStartWith("slug ");
    }
  });
});

describe("body", () => {
  test("display_name longer than 200 characters is 400", async () => {
    const response = await create(free.key, { display_name: "x".repeat(201) });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: "display_name must be at most 200 characters" });
  });

  test("an unknown field is 400 naming it, and nothing is created", async () => {
    const before = (await ctx.sql`select count(*)::int as n from mailboxes`)[0]!.n;
    const response = await create(free.key, { slug: "unknown-field", require_approval: false });
    expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: { error: "unknown field 'require_approval'" } });
    expect((await ctx.sql`select count(*)::int as n from mailboxes`)[0]!.n).toBe(before);
  });

  test("malformed JSON is 400", async () => {
    const response = await create(free.key, '{"slug": "abc"');
    expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: '{"error":"request body is not valid JSON"}' });
  });
});

describe("custom domains", () => {
  test("domain_id on the free plan is 403 custom domains require a paid plan", async () => {
    const response = await create(free.key, { slug: "free-custom", domain_id: "dom_000000000000000000000000" });
    expect({ status: response.status, text: response.text }).toEqual({
      status: 403,
      text: '{"error":"custom domains require a paid plan"}',
    });
  });

  test("a domain that is pending or failed is 400 not verified", async () => {
    for (const status of ["pending", "failed"] as const) {
      const domainId = await domainOf(paid, `${status}.example`, status);
      const response = await create(paid.key, { slug: "early", domain_id: domainId });
      expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: '{"error":"domain is not verified"}' });
    }
  });

  test("an account moved back to the free plan can no longer use its verified domain", async () => {
    const downgraded = await makeAccount(ctx, { plan: "paid" });
    const domainId = await domainOf(downgraded, "downgraded.example", "verified");
    // Through core, as the CLI's `account update` does: this process's key cache forgets the old
    // plan at once (other processes on the NOTIFY; see test/accounts/key-cache.test.ts).
    await updateAccount(ctx.sql, downgraded.accountId, { plan: "free" });
    const response = await create(downgraded.key, { slug: "after", domain_id: domainId });
    expect({ status: response.status, text: response.text }).toEqual({
      status: 403,
      text: '{"error":"custom domains require a paid plan"}',
    });
  });
});

describe("address conflicts", () => {
  test("a slug taken on the shared domain is 400, in the same or another account", async () => {
    expect((await create(free.key, { slug: "taken" })).status).toBe(201);
    const again = await create(free.key, { slug: "taken" });
    const elsewhere = await create(stranger.key, { slug: "taken" });
    expect({ status: again.status, text: again.text }).toEqual({ status: 400, text: '{"error":"mailbox address already in use"}' });
    expect({ status: elsewhere.status, text: elsewhere.text }).toEqual({ status: 400, text: again.text });
  });

  test("a slug taken on a custom domain is 400", async () => {
    const domainId = await domainOf(paid, "dup.example", "verified");
    expect((await create(paid.key, { slug: "one", domain_id: domainId })).status).toBe(201);
    const again = await create(paid.key, { slug: "one", domain_id: domainId });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: "mailbox address already in use" });
  });

  test("concurrent creations of one slug: exactly one wins", async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => create(free.key, { slug: "race" })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
  });
});

describe("GET /api/v1/mailboxes", () => {
  describe("limit", () => {
    let bulk: Fixture;
    beforeAll(async () => {
      bulk = await makeAccount(ctx);
      // 1001 mailboxes, one second apart: bulk-1 is the newest.
      await ctx.sql`
        insert into mailboxes (id, account_id, local_part, domain_name, address, created_at)
        select 'mbx_bulk' || g, ${bulk.accountId}, 'agent-bulk-' || g, 'agents.localhost', 'agent-bulk-' || g || '@agents.localhost',
               now() - g * interval '1 second'
        from generate_series(1, 1001) g`;
    });

    test("a limit that is not an integer is 400 naming limit", async () => {
      for (const value of ["abc", "1.5", "1e400", "0x10", "1e2", "%207", "+5"]) {
        const response = await list(bulk.key, `?limit=${value}`);
        expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: { error: "limit must be an integer >= 1" } });
      }
    });

    test("limit below 1 is 400 naming limit (not the request body)", async () => {
      for (const value of ["0", "-1"]) {
        const response = await list(bulk.key, `?limit=${value}`);
        expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: { error: "limit must be an integer >= 1" } });
      }
    });

    test("an unknown query parameter is 400 naming it", async () => {
      const response = await list(bulk.key, "?offset=5");
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: { error: "unknown query parameter 'offset'" },
      });
    });
  });
});
