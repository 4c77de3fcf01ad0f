// Extraction schemas: JSON Schema objects an account registers; a mailbox may name one so that
// comprehension fills its properties from each inbound message.
import { schemaProblems } from "../comprehension/understanding/schema-validate.ts";
import type { Db } from "../db.ts";
import { errors } from "./errors.ts";
import { newId } from "./ids.ts";
import type { Tenant } from "./principal.ts";

export const MAX_SCHEMA_BYTES = 64 * 1024;

export async function createExtractionSchema(
  sql: Db,
  input: { accountId: string; name: string; schema: unknown },
): Promise<{ id: string; name: string }> {
  const schema = input.schema;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw errors.validation("extraction schema must be a JSON Schema object");
  }
  const record = schema as Record<string, unknown>;
  if (record.type !== undefined && record.type !== "object") {
    throw errors.validation("extraction schema must describe an object (type: object)");
  }
  if (record.properties !== undefined && (typeof record.properties !== "object" || record.properties === null)) {
    throw errors.validation("extraction schema properties must be an object");
  }
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) throw errors.validation("extraction schema is too large");
  // Checked against the draft-07 meta-schema (Ajv), then compiled: a mistake is named with its
  // path in the schema, here rather than as a silently unfilled property on every message.
  const problems = schemaProblems(schema);
  if (problems.length > 0) {
    const shown = problems.slice(0, 3).join("; ");
    throw errors.validation(
      `extraction schema is not valid JSON Schema: ${shown}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ""}`,
    );
  }
  const [account] = await sql`select 1 from accounts where id = ${input.accountId}`;
  if (!account) throw errors.notFound("account");
  const id = newId("sch");
  await sql`insert into extraction_schemas (id, account_id, name, schema) values (${id}, ${input.accountId}, ${input.name}, ${sql.json(schema as never)})`;
  return { id, name: input.name };
}

export type ExtractionSchemaSummary = {
  id: string;
  name: string;
  schema: Record<string, unknown>;
  created_at: string;
  mailboxes: string[];
};

/** The account's schemas, newest first, with the addresses of the mailboxes that use each. */
export async function listExtractionSchemas(sql: Db, tenant: Tenant): Promise<ExtractionSchemaSummary[]> {
  const { accountId } = tenant;
  return sql<ExtractionSchemaSummary[]>`
    select s.id, s.name, s.schema, s.created_at,
      coalesce(array_agg(m.address order by m.address) filter (where m.id is not null), '{}') as mailboxes
    from extraction_schemas s left join mailboxes m on m.extraction_schema_id = s.id and m.account_id = ${accountId}
    where s.account_id = ${accountId}
    group by s.id order by s.created_at desc, s.id desc limit 500`;
}

/**
 * Sets (or with null, clears) the schema a mailbox's inbound mail is extracted with. Both ids
 * must be the account's; either missing or foreign is the one 404.
 */
export async function attachExtractionSchema(sql: Db, tenant: Tenant, mailboxId: string, schemaId: string | null): Promise<void> {
  const { accountId } = tenant;
  if (schemaId !== null) {
    const [schema] = await sql`select 1 from extraction_schemas where id = ${schemaId} and account_id = ${accountId}`;
    if (!schema) throw errors.routeNotFound();
  }
  const updated =
    await sql`update mailboxes set extraction_schema_id = ${schemaId} where id = ${mailboxId} and account_id = ${accountId} returning id`;
  if (updated.length === 0) throw errors.routeNotFound();
}
