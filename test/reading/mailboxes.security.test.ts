// POST /api/v1/mailboxes under hostile bodies: ids the body names must belong to the caller's
// account, and another account's id answers exactly as a missing one does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createExtractionSchema } from "../../src/core/schemas.ts";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxesApi } from "../support/mailboxes-api.ts";

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

const { create, domainOf } = mailboxesApi(() => ctx);

describe("ids named in the body must belong to the account", () => {
  test("extraction_schema_id of the account is recorded on the mailbox", async () => {
    const schema = await createExtractionSchema(ctx.sql, {
      accountId: free.accountId,
      name: "invoice",
      schema: { type: "object", properties: { total: { type: "number" } } },
    });
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
