// Requests generated from the OpenAPI document, for whatever operations it lists: each operation's
// path parameters, query and body are drawn from its own schemas, then mutated (wrong types, huge
// and empty strings, NUL, lone surrogates, invalid percent-encoding, deep nesting, extra fields,
// wrong content types, odd ids, every kind of key). Nothing here knows a route by name.
import fc from "fast-check";
import { deeplyNested, encodeSegment, hostileJson, hostileSegment, hostileString } from "./hostile.ts";
import type { World } from "./world.ts";

type Schema = Record<string, any>;
export type Operation = { method: string; path: string; op: Schema };
export type FuzzRequest = {
  method: string;
  /** path and query, raw as they go on the wire */
  target: string;
  headers: Record<string, string>;
  body?: string;
  /** what was generated, for the failure report */
  note: string;
};

export function operationsOf(doc: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"])
      if (item[method]) out.push({ method: method.toUpperCase(), path, op: item[method] });
  }
  return out;
}

/** A schema with its `$ref`s followed (components only, as the document uses them). */
export function resolve(doc: Schema, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    current =
      String(current.$ref)
        .replace(/^#\//, "")
        .split("/")
        .reduce((node: Schema, part: string) => node?.[part], doc) ?? {};
  }
  return current;
}

/** Values that satisfy a schema, roughly: enough for a request to get past validation sometimes. */
function conforming(doc: Schema, raw: Schema | undefined, ids: string[], depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  const members = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(members) && members.length) return fc.oneof(...members.map((member: Schema) => conforming(doc, member, ids, depth)));
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case "string": {
      if (typeof schema.pattern === "string") return fc.stringMatching(new RegExp(schema.pattern));
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 60, 200);
      return fc.oneof(
        fc.constantFrom(...ids, "bob@example.org", "Hello", "client-1"),
        fc.string({ minLength: Math.min(min, max), maxLength: Math.max(max, min) }),
      );
    }
    case "integer":
      return fc.integer({ min: schema.minimum ?? -10, max: Math.max(schema.minimum ?? 0, 200) });
    case "number":
      return fc.double({ noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return depth > 3 ? fc.constant([]) : fc.array(conforming(doc, schema.items, ids, depth + 1), { maxLength: 3 });
    case "object": {
      if (depth > 3) return fc.constant({});
      const properties = Object.entries<Schema>(schema.properties ?? {});
      const required = new Set<string>(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of properties) record[name] = conforming(doc, property, ids, depth + 1);
      return fc.record(record, { requiredKeys: properties.map(([name]) => name).filter((name) => required.has(name)) });
    }
    default:
      return hostileJson(ids);
  }
}

/** A conforming object body, then some of its fields replaced, removed or added. */
function mutatedObject(doc: Schema, schema: Schema, ids: string[]): fc.Arbitrary<unknown> {
  const names = Object.keys(resolve(doc, schema).properties ?? {});
  return fc
    .tuple(
      conforming(doc, schema, ids),
      fc.array(fc.tuple(fc.constantFrom(...names, "extra_field", "__proto__", "constructor", ""), hostileJson(ids)), { maxLength: 3 }),
      fc.subarray(names),
    )
    .map(([base, replacements, removed]) => {
      const body: Record<string, unknown> = typeof base === "object" && base !== null ? { ...(base as object) } : {};
      for (const name of removed) delete body[name];
      for (const [name, value] of replacements)
        Object.defineProperty(body, name, { value, enumerable: true, writable: true, configurable: true });
      return body;
    });
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json; charset=latin1",
  "*/*",
  "",
];

/** A request body as text, with the content type it claims. */
function bodyText(
  doc: Schema,
  schema: Schema | undefined,
  ids: string[],
): fc.Arbitrary<{ body?: string; contentType?: string; note: string }> {
  const objectBody = schema ? mutatedObject(doc, schema, ids) : hostileJson(ids);
  return fc
    .oneof(
      { weight: 6, arbitrary: objectBody.map((value) => ({ body: JSON.stringify(value), note: "json" })) },
      { weight: 2, arbitrary: hostileJson(ids).map((value) => ({ body: JSON.stringify(value) ?? "null", note: "any json" })) },
      { weight: 1, arbitrary: fc.constant<{ body?: string; note: string }>({ note: "no body" }) },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom(
            "",
            "{",
            "}",
            "[]",
            "null",
            '"text"',
            '{"a":1,}',
            "{'a':1}",
            "\ufeff{}",
            '{"mailbox_id":"\\u0000"}',
            '{"text":"\\ud800"}',
            '{"__proto__":{"polluted":1}}',
            '{"a":1,"a":2}',
            deeplyNested(5000),
            deeplyNested(20, '{"a":', "}"),
            `{"text":"${"x".repeat(1_200_000)}"}`,
            "\0",
            "%7B%7D",
            "mailbox_id=x&text=y",
          )
          .map((body) => ({ body, note: "raw" })),
      },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }).map((body) => ({ body, note: "garbage" })) },
    )
    .chain((generated) =>
      fc
        .oneof({ weight: 5, arbitrary: fc.constant("application/json") }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) })
        .map((contentType) => ({ ...generated, contentType: generated.body === undefined ? undefined : contentType })),
    );
}

function authHeader(world: World): fc.Arbitrary<string | null> {
  const { keys } = world;
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${keys.owner}`) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        `Bearer ${keys.mcp}`,
        `Bearer ${keys.bootstrap}`,
        `Bearer ${keys.bound}`,
        `Bearer ${keys.noCapabilities}`,
        `Bearer ${keys.stranger}`,
        `bearer ${keys.owner}`,
        `Bearer  ${keys.owner}`,
        `Bearer ${keys.owner}x`,
        `Basic ${btoa("a:b")}`,
        "Bearer",
        "Bearer svc_invalid",
        "svc_x",
        `Bearer ${"a".repeat(5000)}`,
      ),
    },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}

function queryString(doc: Schema, parameters: Schema[], ids: string[]): fc.Arbitrary<string> {
  const declared = parameters.filter((parameter) => parameter.in === "query");
  const pairs = declared.map((parameter) =>
    fc.option(
      fc
        .oneof(
          { weight: 4, arbitrary: conforming(doc, parameter.schema, ids).map((value) => encodeSegment(String(value))) },
          { weight: 3, arbitrary: hostileSegment(ids) },
          { weight: 1, arbitrary: fc.constantFrom("", "-1", "0", "1.5", "0x10", "1e2", " 7", "99999999999999999999", "NaN") },
        )
        .map((value) => `${parameter.name}=${value}`),
      { freq: 5 },
    ),
  );
  const extra = fc.array(
    fc.tuple(hostileString().map(encodeSegment), hostileSegment(ids)).map(([name, value]) => `${name}=${value}`),
    { maxLength: 2 },
  );
  const repeated = declared.length
    ? fc.option(fc.constantFrom(...declared.map((p) => `${p.name}=a&${p.name}=b`)), { freq: 8 })
    : fc.constant(null);
  return fc.tuple(fc.tuple(...pairs), extra, repeated).map(([values, more, twice]) => {
    const all = [...values.filter((value): value is string => value !== null), ...more, ...(twice ? [twice] : [])];
    return all.length ? `?${all.join("&")}` : "";
  });
}

/** Requests for one operation of the document. */
export function requestsFor(doc: Schema, operation: Operation, world: World): fc.Arbitrary<FuzzRequest> {
  const ids = [...Object.values(world.ids).flat()];
  const parameters: Schema[] = operation.op.parameters ?? [];
  const pathNames = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const segments = fc.tuple(...pathNames.map(() => hostileSegment(ids)));
  const bodySchema = operation.op.requestBody?.content?.["application/json"]?.schema as Schema | undefined;
  const hasBody = operation.method !== "GET";
  return fc
    .record({
      segments,
      query: queryString(doc, parameters, ids),
      auth: authHeader(world),
      body: hasBody
        ? bodyText(doc, bodySchema, ids)
        : fc.constant({ note: "none" } as { body?: string; contentType?: string; note: string }),
    })
    .map(({ segments: values, query, auth, body }) => {
      let path = operation.path;
      for (const [index, name] of pathNames.entries()) path = path.replace(`{${name}}`, values[index]!);
      const headers: Record<string, string> = {};
      if (auth !== null) headers.authorization = auth;
      if (body.contentType) headers["content-type"] = body.contentType;
      return {
        method: operation.method,
        target: `${path}${query}`,
        headers,
        body: body.body,
        note: `${operation.method} ${operation.path} body:${body.note}`,
      };
    });
}
