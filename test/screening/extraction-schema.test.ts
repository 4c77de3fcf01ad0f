// Extraction schemas on Ajv: registration checks the draft-07 meta-schema and names the path of
// the problem (400); filling enforces every keyword (anyOf, const, format, additionalProperties,
// $ref into definitions); the ReDoS guard on `pattern` still holds.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ComprehensionInput, extractFacts } from "../../src/comprehension/understanding/extract.ts";
import { fillSchema } from "../../src/comprehension/understanding/schema-fill.ts";
import { schemaProblems, validate, validateProperty } from "../../src/comprehension/understanding/schema-validate.ts";
import { createExtractionSchema } from "../../src/core/schemas.ts";
import { message } from "../fixtures/comprehension-messages.ts";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";
import { cpuMsSince } from "../support/cpu-time.ts";
import { refusal } from "../support/refusal.ts";

const mail = (body: string, subject = ""): ComprehensionInput => message({ subject, from: "billing@shop.example", body });
const fill = (schema: Record<string, unknown>, body: string, subject = "") => {
  const input = mail(body, subject);
  return fillSchema(schema, input, extractFacts(input));
};

describe("registration: meta-schema check with the path of the problem", () => {
  let ctx: TestContext;
  let owner: Fixture;
  beforeAll(async () => {
    ctx = await makeTestContext();
    owner = await makeAccount(ctx);
  });
  afterAll(() => ctx.close());

  const register = (schema: unknown) => createExtractionSchema(ctx.sql, { accountId: owner.accountId, name: "s", schema });

  test.each([
    [{ type: "object", properties: { age: { type: "numbr" } } }, "/properties/age/type: must be equal to one of the allowed values"],
    [{ type: "object", properties: { tags: { type: "array", minItems: -1 } } }, "/properties/tags/minItems: must be >= 0"],
    [{ type: "object", required: "total" }, "/required: must be array"],
    [{ type: "object", properties: { when: { anyOf: [] } } }, "/properties/when/anyOf: must NOT have fewer than 1 items"],
    [
      { type: "object", properties: { code: { type: "string", pattern: "([a-z]" } } },
      "/properties/code/pattern: not a valid regular expression",
    ],
    [
      { type: "object", properties: { due: { $ref: "#/definitions/date" } } },
      "/properties/due/$ref: can't resolve reference #/definitions/date from id #",
    ],
    [
      { type: "object", properties: { x: { $ref: "https://schemas.example/x.json" } } },
      "/properties/x/$ref: can't resolve reference https://schemas.example/x.json from id #",
    ],
    [
      { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" },
      "/$schema: only JSON Schema draft-07 is supported (http://json-schema.org/draft-07/schema#)",
    ],
  ])("%j is a 400 naming where", async (schema, problem) => {
    const error = await refusal(register(schema));
    expect({ status: error.status, body: error.body }).toEqual({
      status: 400,
      body: { error: `extraction schema is not valid JSON Schema: ${problem}` },
    });
  });

  test("nothing is stored for a refused schema; a valid one using every keyword is stored", async () => {
    const before = await ctx.sql`select count(*)::int as n from extraction_schemas where account_id = ${owner.accountId}`;
    await register({ type: "object", properties: { a: { type: "nope" } } }).catch(() => null);
    const after = await ctx.sql`select count(*)::int as n from extraction_schemas where account_id = ${owner.accountId}`;
    expect(after[0]!.n).toBe(before[0]!.n);
    const created = await register({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { iso: { type: "string", format: "date" } },
      properties: {
        due: { $ref: "#/definitions/iso" },
        kind: { const: "invoice" },
        total: { anyOf: [{ type: "number" }, { type: "null" }] },
      },
      additionalProperties: false,
      "x-owner": "billing team",
    });
    expect(created.id).toStartWith("sch_");
  });

  test("the older shape checks keep their messages", async () => {
    expect((await refusal(register([1]))).body).toEqual({ error: "extraction schema must be a JSON Schema object" });
    expect((await refusal(register({ type: "string" }))).body).toEqual({
      error: "extraction schema must describe an object (type: object)",
    });
  });
});

describe("filling enforces every keyword", () => {
  test("format: a found value that is not the format is rejected, one that is, kept", () => {
    const schema = {
      type: "object",
      properties: { contact_email: { type: "string", format: "email" }, due_date: { type: "string", format: "date" } },
    };
    const ok = fill(schema, "Contact email: pat@shop.example\nDue date: 2025-03-14");
    expect(ok.values).toEqual({ contact_email: "pat@shop.example", due_date: "2025-03-14" });
    // The labelled line is not an email: it gives way to the sender, the next candidate.
    const bad = fill(schema, "Contact email: ask at the front desk");
    expect(bad.values.contact_email).toBe("billing@shop.example");
    expect(validateProperty(schema, "contact_email", "ask at the front desk")).toEqual(['/contact_email: must match format "email"']);
  });

  test("const: only the one value is accepted", () => {
    const schema = { type: "object", properties: { document: { const: "invoice" } } };
    expect(fill(schema, "Document: invoice\nTotal: $12.00").values).toEqual({ document: "invoice" });
    expect(fill(schema, "Document: receipt").values).toEqual({});
  });

  test("anyOf: a value fitting any branch is kept, with the branch's type for coercion", () => {
    const schema = { type: "object", properties: { seats: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }] } } };
    expect(fill(schema, "Seats: 12").values).toEqual({ seats: 12 });
    const none = fill(schema, "Seats: 0");
    expect(none.values).toEqual({});
    expect(none.errors).toContain("/seats: must match a schema in anyOf");
  });

  test("$ref into definitions is resolved when filling", () => {
    const schema = {
      type: "object",
      definitions: { order: { type: "string", pattern: "^[0-9]{4,}$" } },
      properties: { order_number: { $ref: "#/definitions/order" } },
    };
    expect(fill(schema, "Order number: 88231").values).toEqual({ order_number: "88231" });
    expect(fill(schema, "Order number: ABC").values).toEqual({});
  });

  test("additionalProperties and required are enforced on whole values (the model engine's answers)", () => {
    const schema = { type: "object", required: ["total"], properties: { total: { type: "number" } }, additionalProperties: false };
    expect(validate(schema, { total: 3, note: "x" })).toEqual(["/note: not allowed (additionalProperties)"]);
    expect(validate(schema, {})).toEqual(["/total: required"]);
    expect(validate(schema, { total: 3 })).toEqual([]);
  });
});

describe("the ReDoS guard on pattern", () => {
  test("a nested-quantifier pattern is not run, and answers at once", () => {
    const started = process.cpuUsage();
    expect(validate({ type: "string", pattern: "^(a+)+$" }, `${"a".repeat(5000)}!`)).toEqual([]);
    // In patternProperties an unrun pattern counts as matching: its sub-schema applies to every name.
    expect(validate({ type: "object", patternProperties: { "^(a|a)*$": { type: "number" } } }, { [`${"a".repeat(40)}!`]: "x" })).toEqual([
      `/${"a".repeat(40)}!: must be number`,
    ]);
    // Run, either pattern would not finish in a lifetime.
    expect(cpuMsSince(started)).toBeLessThan(500);
  });

  test("a safe pattern is not run on more than 1,000 characters: such a value does not match", () => {
    expect(validate({ type: "string", pattern: "^a+$" }, "a".repeat(1000))).toEqual([]);
    expect(validate({ type: "string", pattern: "^a+$" }, "a".repeat(1001))).toEqual(["/: does not match pattern"]);
  });

  test("schemaProblems is empty for a good schema and never throws on odd input", () => {
    expect(schemaProblems({ type: "object", properties: { a: { type: "string" } } })).toEqual([]);
    expect(schemaProblems({ type: "object", properties: { a: { enum: ["(", "["] } } })).toEqual([]);
    expect(schemaProblems({ type: "object", properties: { a: { const: { pattern: "(" } } } })).toEqual([]);
  });
});
