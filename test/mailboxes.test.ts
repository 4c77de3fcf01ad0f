// POST /api/v1/mailboxes and GET /api/v1/mailboxes: slug rules, addresses, ownership of the ids a
// body names, conflicts, and the list's shape, order and limit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createExtractionSchema } from "../src/core/schemas.ts";
import { makeAccount, makeMailbox, makeTestContext, type Fixture, type TestContext } from "./support/context.ts";

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

const create = (key: string, body?: unknown) => ctx.request("POST", "/api/v1/mailboxes", { key, body });
const list = (key: string, query = "") => ctx.request("GET", `/api/v1/mailboxes${query}`, { key });

/** A custom domain of the account, put in the given status directly (domains.test.ts covers DNS). */
async function domainOf(fixture: Fixture, name: string, status: "pending" | "verified" | "failed"): Promise<string> {
  const created = await ctx.request("POST", "/api/v1/domains", { key: fixture.key, body: { name } });
  expect(created.status).toBe(200);
  await ctx.sql`update domains set status = ${status} where id = ${created.body.id}`;
  return created.body.id;
}

describe("slug", () => {
  test("41 characters (the pattern's maximum) is accepted", async () => {
    const slug = "a" + "b".repeat(40);
    const response = await create(free.key, { slug });
    expect(response.status).toBe(201);
    expect(response.body.address).toBe(`agent-${slug}@agents.localhost`);
  });

  test("42 characters is rejected naming the rule", async () => {
    const response = await create(free.key, { slug: "a" + "b".repeat(41) });
    expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: SLUG_ERROR });
  });

  const accepted = ["x", "7", "0abc", "a-b-c", "trailing-", "a--b"];
  for (const slug of accepted) {
    test(`'${slug}' is accepted`, async () => {
      const response = await create(free.key, { slug });
      expect(response.status).toBe(201);
      expect(response.body.address).toBe(`agent-${slug}@agents.localhost`);
    });
  }

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

  test("when omitted, a random hex slug on the shared domain", async () => {
    const a = await create(free.key, {});
    const b = await create(free.key, {});
    expect(a.status).toBe(201);
    expect(a.body.address).toMatch(/^agent-[0-9a-f]{8,41}@agents\.localhost$/);
    expect(b.body.address).toMatch(/^agent-[0-9a-f]{8,41}@agents\.localhost$/);
    expect(a.body.address).not.toBe(b.body.address);
  });
});

describe("body", () => {
  test("an empty object and no body at all both create a mailbox", async () => {
    const empty = await create(free.key, {});
    const none = await ctx.request("POST", "/api/v1/mailboxes", { key: free.key });
    expect(empty.status).toBe(201);
    expect(none.status).toBe(201);
    expect(Object.keys(none.body).sort()).toEqual(["address", "id"]);
  });

  test("whitespace-only body counts as no body", async () => {
    const response = await create(free.key, "  \n ");
    expect(response.status).toBe(201);
  });

  test("display_name is stored and listed", async () => {
    const response = await create(free.key, { slug: "named", display_name: "Support Bot" });
    expect(response.status).toBe(201);
    const listed = (await list(free.key)).body.mailboxes.find((m: { id: string }) => m.id === response.body.id);
    expect(listed).toEqual({ id: response.body.id, address: "agent-named@agents.localhost", display_name: "Support Bot", created_at: expect.any(String) });
  });

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

  test("a JSON body is read whatever the content type says", async () => {
    const response = await ctx.request("POST", "/api/v1/mailboxes", { key: free.key, body: '{"slug":"plain-text-type"}', headers: { "content-type": "text/plain" } });
    expect(response.status).toBe(201);
    expect(response.body.address).toBe("agent-plain-text-type@agents.localhost");
  });
});

describe("ids named in the body must belong to the account", () => {
  test("extraction_schema_id of the account is recorded on the mailbox", async () => {
    const schema = await createExtractionSchema(ctx.sql, { accountId: free.accountId, name: "invoice", schema: { type: "object", properties: { total: { type: "number" } } } });
    const response = await create(free.key, { slug: "with-schema", extraction_schema_id: schema.id });
    expect(response.status).toBe(201);
    const [row] = await ctx.sql`select extraction_schema_id from mailboxes where id = ${response.body.id}`;
    expect(row!.extraction_schema_id).toBe(schema.id);
  });

  test("extraction_schema_id of another account is 404, identical to a missing one", async () => {
    const schema = await createExtractionSchema(ctx.sql, { accountId: stranger.accountId, name: "theirs", schema: { type: "object" } });
    const foreign = await create(free.key, { slug: "foreign-schema", extraction_schema_id: schema.id });
    const missing = await create(free.key, { slug: "missing-schema", extraction_schema_id: "sch_000000000000000000000000" });
    expect({ status: foreign.status, text: foreign.text }).toEqual({ status: 404, text: '{"error":"not found"}' });
    expect({ status: missing.status, text: missing.text }).toEqual({ status: 404, text: foreign.text });
    expect((await ctx.sql`select 1 from mailboxes where local_part = 'agent-foreign-schema'`).length).toBe(0);
  });

  test("domain_id of another account is 404, identical to a missing one", async () => {
    const theirs = await domainOf(stranger, "stranger.example", "verified");
    const foreign = await create(paid.key, { slug: "foreign-domain", domain_id: theirs });
    const missing = await create(paid.key, { slug: "foreign-domain", domain_id: "dom_000000000000000000000000" });
    expect({ status: foreign.status, text: foreign.text }).toEqual({ status: 404, text: '{"error":"not found"}' });
    expect({ status: missing.status, text: missing.text }).toEqual({ status: 404, text: foreign.text });
  });
});

describe("custom domains", () => {
  test("domain_id on the free plan is 403 custom domains require a paid plan", async () => {
    const response = await create(free.key, { slug: "free-custom", domain_id: "dom_000000000000000000000000" });
    expect({ status: response.status, text: response.text }).toEqual({ status: 403, text: '{"error":"custom domains require a paid plan"}' });
  });

  test("a domain that is pending or failed is 400 not verified", async () => {
    for (const status of ["pending", "failed"] as const) {
      const domainId = await domainOf(paid, `${status}.example`, status);
      const response = await create(paid.key, { slug: "early", domain_id: domainId });
      expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: '{"error":"domain is not verified"}' });
    }
  });

  test("a verified domain gives <slug>@<domain>, and a random slug there has no agent- prefix", async () => {
    const domainId = await domainOf(paid, "verified.example", "verified");
    const named = await create(paid.key, { slug: "sales", domain_id: domainId, display_name: "Sales" });
    expect(named.status).toBe(201);
    expect(named.body.address).toBe("sales@verified.example");
    const random = await create(paid.key, { domain_id: domainId });
    expect(random.body.address).toMatch(/^[0-9a-f]{8,41}@verified\.example$/);
    const [row] = await ctx.sql`select domain_id, local_part, domain_name from mailboxes where id = ${named.body.id}`;
    expect(row).toEqual({ domain_id: domainId, local_part: "sales", domain_name: "verified.example" });
  });

  test("the same slug on the shared domain and on a custom domain are different addresses", async () => {
    const domainId = await domainOf(paid, "both.example", "verified");
    expect((await create(paid.key, { slug: "twin", domain_id: domainId })).body.address).toBe("twin@both.example");
    expect((await create(paid.key, { slug: "twin" })).body.address).toBe("agent-twin@agents.localhost");
  });

  test("an account moved back to the free plan can no longer use its verified domain", async () => {
    const downgraded = await makeAccount(ctx, { plan: "paid" });
    const domainId = await domainOf(downgraded, "downgraded.example", "verified");
    await ctx.sql`update accounts set plan = 'free' where id = ${downgraded.accountId}`;
    const response = await create(downgraded.key, { slug: "after", domain_id: domainId });
    expect({ status: response.status, text: response.text }).toEqual({ status: 403, text: '{"error":"custom domains require a paid plan"}' });
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
  test("newest first, each item exactly {id, address, display_name, created_at}", async () => {
    const owner = await makeAccount(ctx);
    const first = await makeMailbox(ctx, owner, "first");
    const second = await makeMailbox(ctx, owner, "second");
    const third = await create(owner.key, { slug: "third", display_name: "Third" });
    const response = await list(owner.key);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["mailboxes"]);
    expect(response.body.mailboxes.map((m: { id: string }) => m.id)).toEqual([third.body.id, second.id, first.id]);
    for (const mailbox of response.body.mailboxes) {
      expect(Object.keys(mailbox).sort()).toEqual(["address", "created_at", "display_name", "id"]);
      expect(Number.isNaN(Date.parse(mailbox.created_at))).toBe(false);
    }
    expect(response.body.mailboxes[0]).toEqual({ id: third.body.id, address: "agent-third@agents.localhost", display_name: "Third", created_at: expect.any(String) });
    expect(response.body.mailboxes[2].display_name).toBeNull();
  });

  test("an account with no mailboxes gets an empty list", async () => {
    const empty = await makeAccount(ctx);
    const response = await list(empty.key);
    expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: '{"mailboxes":[]}' });
  });

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

    const addresses = (response: { body: any }) => response.body.mailboxes.map((m: { address: string }) => m.address);

    test("defaults to the 100 newest", async () => {
      const got = addresses(await list(bulk.key));
      expect(got.length).toBe(100);
      expect(got[0]).toBe("agent-bulk-1@agents.localhost");
      expect(got[99]).toBe("agent-bulk-100@agents.localhost");
    });

    test("limit=3 gives the 3 newest", async () => {
      expect(addresses(await list(bulk.key, "?limit=3"))).toEqual(["agent-bulk-1@agents.localhost", "agent-bulk-2@agents.localhost", "agent-bulk-3@agents.localhost"]);
    });

    test("values above 1000 are clamped to 1000", async () => {
      expect(addresses(await list(bulk.key, "?limit=5000")).length).toBe(1000);
      expect(addresses(await list(bulk.key, "?limit=99999999999999999999")).length).toBe(1000);
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
      expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: { error: "unknown query parameter 'offset'" } });
    });
  });
});
