// POST /api/v1/mailboxes and GET /api/v1/mailboxes on the happy path: accepted slugs and bodies,
// addresses on the shared and on a verified custom domain, and the list's shape, order and limit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxesApi } from "../support/mailboxes-api.ts";

let ctx: TestContext;
let free: Fixture;
let paid: Fixture;

beforeAll(async () => {
  ctx = await makeTestContext();
  free = await makeAccount(ctx);
  paid = await makeAccount(ctx, { plan: "paid" });
});

afterAll(() => ctx.close());

const { create, list, domainOf } = mailboxesApi(() => ctx);

describe("slug", () => {
  test("41 characters (the pattern's maximum) is accepted", async () => {
    const slug = "a" + "b".repeat(40);
    const response = await create(free.key, { slug });
    expect(response.status).toBe(201);
    expect(response.body.address).toBe(`agent-${slug}@agents.localhost`);
  });

  const accepted = ["x", "7", "0abc", "a-b-c", "trailing-", "a--b"];
  for (const slug of accepted) {
    test(`'${slug}' is accepted`, async () => {
      const response = await create(free.key, { slug });
      expect(response.status).toBe(201);
      expect(response.body.address).toBe(`agent-${slug}@agents.localhost`);
    });
  }

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
    expect(listed).toEqual({
      id: response.body.id,
      address: "agent-named@agents.localhost",
      display_name: "Support Bot",
      created_at: expect.any(String),
      paused: false,
    });
  });

  test("a JSON body must say so: another declared type is 415, a charset parameter or a +json type is fine, none is read as JSON", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"]) {
      const refused = await ctx.request("POST", "/api/v1/mailboxes", {
        key: free.key,
        body: '{"slug":"plain-text-type"}',
        headers: { "content-type": type },
      });
      expect({ type, status: refused.status, body: refused.body }).toEqual({
        type,
        status: 415,
        body: { error: "request body must be sent as application/json" },
      });
    }
    for (const [slug, type] of [
      ["charset-type", "application/json; charset=utf-8"],
      ["merge-type", "application/merge-patch+json"],
      ["upper-type", "Application/JSON"],
    ]) {
      const created = await ctx.request("POST", "/api/v1/mailboxes", {
        key: free.key,
        body: JSON.stringify({ slug }),
        headers: { "content-type": type! },
      });
      expect({ type, status: created.status }).toEqual({ type, status: 201 });
    }
    // No declared type at all (Request adds text/plain to a string body, so bytes it is).
    const untyped = await ctx.app.handle(
      new Request("http://localhost/api/v1/mailboxes", {
        method: "POST",
        headers: { authorization: `Bearer ${free.key}` },
        body: new TextEncoder().encode('{"slug":"no-type"}'),
      }),
    );
    expect(untyped.status).toBe(201);
    // An empty body under any type is the omitted optional body.
    const empty = await ctx.request("POST", "/api/v1/mailboxes", { key: free.key, body: "", headers: { "content-type": "text/plain" } });
    expect(empty.status).toBe(201);
  });
});

describe("custom domains", () => {
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
});

describe("GET /api/v1/mailboxes", () => {
  test("newest first, each item exactly {id, address, display_name, created_at, paused}", async () => {
    const owner = await makeAccount(ctx);
    const first = await makeMailbox(ctx, owner, "first");
    const second = await makeMailbox(ctx, owner, "second");
    const third = await create(owner.key, { slug: "third", display_name: "Third" });
    const response = await list(owner.key);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["mailboxes"]);
    expect(response.body.mailboxes.map((m: { id: string }) => m.id)).toEqual([third.body.id, second.id, first.id]);
    for (const mailbox of response.body.mailboxes) {
      expect(Object.keys(mailbox).sort()).toEqual(["address", "created_at", "display_name", "id", "paused"]);
      expect(Number.isNaN(Date.parse(mailbox.created_at))).toBe(false);
    }
    expect(response.body.mailboxes[0]).toEqual({
      id: third.body.id,
      address: "agent-third@agents.localhost",
      display_name: "Third",
      created_at: expect.any(String),
      paused: false,
    });
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
      expect(addresses(await list(bulk.key, "?limit=3"))).toEqual([
        "agent-bulk-1@agents.localhost",
        "agent-bulk-2@agents.localhost",
        "agent-bulk-3@agents.localhost",
      ]);
    });

    test("values above 1000 are clamped to 1000", async () => {
      expect(addresses(await list(bulk.key, "?limit=5000")).length).toBe(1000);
      expect(addresses(await list(bulk.key, "?limit=99999999999999999999")).length).toBe(1000);
    });
  });
});
