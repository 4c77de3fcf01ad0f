// The extraction schemas page over real HTTP: creating a schema from pasted text and from an
// uploaded file (multipart), refused with core's messages and the API's JSON limits, attaching
// one to a mailbox so that the next inbound message is extracted with it, CSRF on both forms,
// and one 404 for another account's schema or mailbox.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DashboardClient, hiddenField, signUp } from "../support/dashboard-client.ts";
import { mime, receive } from "../support/mail-fixtures.ts";

let ctx: TestContext;
let server: HttpServer;
let owner: Fixture;
let other: Fixture;
let mailbox: { id: string; address: string };
let otherMailbox: { id: string; address: string };
let alice: DashboardClient;
let bob: DashboardClient;

const INVOICE = {
  type: "object",
  properties: { invoice_number: { type: "string", pattern: "^INV-[0-9]+$" }, amount: { type: "number" } },
  required: ["invoice_number"],
};

async function create(
  client: DashboardClient,
  fields: Record<string, string>,
  file?: string,
): Promise<{ status: number; text: string; headers: Headers }> {
  const form = new FormData();
  form.set("csrf", hiddenField((await client.get("/dashboard/schemas")).text, "csrf"));
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (file !== undefined) form.set("schema_file", new File([file], "schema.json", { type: "application/json" }));
  return client.multipart("/dashboard/schemas", form);
}

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  const base = `http://127.0.0.1:${server.port}`;
  owner = await makeAccount(ctx);
  other = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, owner, "invoices");
  otherMailbox = await makeMailbox(ctx, other, "theirs");
  alice = (await signUp(ctx, base, owner.accountId, "alice@example.com")).client;
  bob = (await signUp(ctx, base, other.accountId, "bob@example.com")).client;
});

afterAll(async () => {
  await server?.stop();
  await ctx?.close();
});

describe("extraction schemas", () => {
  test("create from pasted text and from a file; both are listed with their properties", async () => {
    const typed = await create(alice, { name: "Invoices", schema: JSON.stringify(INVOICE) });
    expect(typed.status).toBe(303);
    expect(typed.headers.get("location")).toBe("/dashboard/schemas?done=schema_created");
    const uploaded = await create(
      alice,
      { name: "Orders", schema: "" },
      JSON.stringify({ type: "object", properties: { order_id: { type: "string" } } }),
    );
    expect(uploaded.status).toBe(303);
    const page = await alice.get("/dashboard/schemas");
    expect(page.text).toMatch(/<strong>Invoices<\/strong>[\s\S]*?<td data-label="Properties">amount, invoice_number<\/td>/);
    expect(page.text).toMatch(/<strong>Orders<\/strong>[\s\S]*?<td data-label="Properties">order_id<\/td>/);
    const stored = await ctx.sql`select name, schema from extraction_schemas where account_id = ${owner.accountId} order by name`;
    expect(stored.map((r) => r.name)).toEqual(["Invoices", "Orders"]);
    expect(stored[0]!.schema).toEqual(INVOICE);
    expect((await bob.get("/dashboard/schemas")).text).not.toContain("Invoices");
  });

  test("refused as the API would: not JSON, not an object schema, too deep, no name; the typed text is kept", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ name: "Broken", schema: "{ not json" }, "Not created: the text is not JSON"],
      [{ name: "List", schema: "[1, 2]" }, "Not created: extraction schema must be a JSON Schema object."],
      [{ name: "Text", schema: '{"type": "string"}' }, "Not created: extraction schema must describe an object (type: object)."],
      [{ name: "Deep", schema: `${"[".repeat(20)}${"]".repeat(20)}` }, "Not created: the schema is nested deeper than 16 levels."],
      [{ name: "", schema: "{}" }, "Not created: a name of 1 to 200 characters is required."],
    ];
    for (const [fields, message] of cases) {
      const reply = await create(alice, fields);
      expect(reply.status).toBe(400);
      expect(reply.text).toContain(message);
    }
    expect((await create(alice, { name: "Kept", schema: '{"type": "string"}' })).text).toContain(
      "&quot;type&quot;: &quot;string&quot;}</textarea>",
    );
    expect((await ctx.sql`select count(*)::int as n from extraction_schemas where account_id = ${owner.accountId}`)[0]!.n).toBe(2);
  });

  test("a schema over the size limit is refused before it is parsed", async () => {
    const big = JSON.stringify({ type: "object", description: "x".repeat(80 * 1024) });
    const reply = await create(alice, { name: "Big", schema: big });
    expect(reply.status).toBe(413);
  });

  test("attach to a mailbox: the next inbound message is extracted with it; clearing it stops that", async () => {
    const [schema] = await ctx.sql`select id from extraction_schemas where account_id = ${owner.accountId} and name = 'Invoices'`;
    const attached = await alice.act("/dashboard/schemas", "/dashboard/schemas/attach", { mailbox_id: mailbox.id, schema_id: schema!.id });
    expect(attached.status).toBe(303);
    expect((await ctx.sql`select extraction_schema_id from mailboxes where id = ${mailbox.id}`)[0]!.extraction_schema_id).toBe(schema!.id);
    expect((await alice.get("/dashboard/schemas")).text).toMatch(
      new RegExp(`<strong>Invoices</strong>[\\s\\S]*?<td data-label="Used by">${mailbox.address}</td>`),
    );
    const id = await receive(
      ctx,
      mailbox.id,
      mime({
        from: "billing@example.org",
        to: mailbox.address,
        subject: "Invoice INV-1001",
        text: "Invoice INV-1001 for 250.00 EUR is due on 2026-12-01.",
      }),
    );
    const [message] = await ctx.sql`select comprehension from messages where id = ${id}`;
    expect(message!.comprehension.extraction.schema_fields).toMatchObject({ amount: 250 });

    const cleared = await alice.act("/dashboard/schemas", "/dashboard/schemas/attach", { mailbox_id: mailbox.id, schema_id: "" });
    expect(cleared.status).toBe(303);
    expect((await ctx.sql`select extraction_schema_id from mailboxes where id = ${mailbox.id}`)[0]!.extraction_schema_id).toBeNull();
  });

  test("another account's schema or mailbox is the one 404 page and nothing changes", async () => {
    const [mine] = await ctx.sql`select id from extraction_schemas where account_id = ${owner.accountId} and name = 'Invoices'`;
    const foreignMailbox = await alice.act("/dashboard/schemas", "/dashboard/schemas/attach", {
      mailbox_id: otherMailbox.id,
      schema_id: mine!.id,
    });
    const missingMailbox = await alice.act("/dashboard/schemas", "/dashboard/schemas/attach", {
      mailbox_id: "mbx_000000000000000000000000",
      schema_id: mine!.id,
    });
    expect(foreignMailbox.status).toBe(404);
    expect(foreignMailbox.text).toBe(missingMailbox.text);
    const foreignSchema = await bob.act("/dashboard/schemas", "/dashboard/schemas/attach", {
      mailbox_id: otherMailbox.id,
      schema_id: mine!.id,
    });
    expect(foreignSchema.status).toBe(404);
    expect((await ctx.sql`select extraction_schema_id from mailboxes where id = ${otherMailbox.id}`)[0]!.extraction_schema_id).toBeNull();
  });

  test("CSRF: both forms without the session's token, or from another origin, are 403 and change nothing", async () => {
    const [mine] = await ctx.sql`select id from extraction_schemas where account_id = ${owner.accountId} and name = 'Invoices'`;
    const noToken = new FormData();
    noToken.set("name", "Sneaky");
    noToken.set("schema", "{}");
    expect((await alice.multipart("/dashboard/schemas", noToken)).status).toBe(403);
    const token = hiddenField((await alice.get("/dashboard/schemas")).text, "csrf");
    const foreign = new FormData();
    foreign.set("csrf", token);
    foreign.set("name", "Sneaky");
    foreign.set("schema", "{}");
    expect((await alice.multipart("/dashboard/schemas", foreign, { origin: "https://evil.example" })).status).toBe(403);
    expect((await alice.post("/dashboard/schemas/attach", { mailbox_id: mailbox.id, schema_id: mine!.id })).status).toBe(403);
    expect((await alice.post("/dashboard/schemas/attach", { mailbox_id: mailbox.id, schema_id: mine!.id, csrf: "forged" })).status).toBe(
      403,
    );
    expect((await ctx.sql`select 1 from extraction_schemas where name = 'Sneaky'`).length).toBe(0);
    expect((await ctx.sql`select extraction_schema_id from mailboxes where id = ${mailbox.id}`)[0]!.extraction_schema_id).toBeNull();
  });
});
