// JSON Schema (draft-07) validation on Ajv with ajv-formats: every keyword an extraction schema
// may use (anyOf, oneOf, const, format, additionalProperties, $ref into definitions ...) is
// enforced. Both engines check what they fill with it, so a mailbox gets the same guarantee
// whichever engine ran; registration checks a schema against the meta-schema with it.
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

export type JsonSchema = Record<string, unknown>;

// Values come from untrusted mail and patterns from an account: cap what a pattern may be run
// on, and skip patterns with a quantified group that itself holds a quantifier ("(a+)+") or an
// alternation ("(a|a)*"), the shapes of catastrophic backtracking, rather than let one schema
// stall a shared worker.
const MAX_PATTERN_INPUT = 1000;
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.){0,200}[+*}|](?:[^()\\]|\\.){0,200}\)[+*{]/;

/** Ajv's regular-expression hook (`pattern`, `patternProperties`): the ReDoS guard sits here. */
function guardedRegExp(source: string, flags: string) {
  const unsafe = NESTED_QUANTIFIER.test(source);
  // Compiled even when unsafe, so an invalid pattern is still an error at registration.
  const re = new RegExp(source, flags);
  return {
    test: (value: string) => (unsafe ? true : value.length <= MAX_PATTERN_INPUT && re.test(value)),
    // Ajv keys compiled patterns by this text: one entry per pattern.
    toString: () => `guarded:${re.toString()}`,
  };
}
guardedRegExp.code = "guardedRegExp";

function makeAjv(checkSchemas = false): Ajv {
  // strict: false, so annotations and vendor keywords ("x-...") are allowed, as JSON Schema says;
  // formats in "fast" mode: their full-mode regular expressions are not all linear. Only the
  // meta-schema instance checks schemas: registration ran that check, and compiling the
  // meta-schema again for every schema's own instance would triple the cost.
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false, validateSchema: checkSchemas, code: { regExp: guardedRegExp } });
  addFormats(ajv, { mode: "fast" });
  return ajv;
}

// Meta-schema checks only: it never compiles (so never keeps) an account's schema.
const metaAjv = makeAjv(true);

// One Ajv per compiled schema: two accounts' schemas may share an $id, and dropping the entry
// drops everything Ajv kept for it.
const compiled = new Map<string, ValidateFunction | Error>();
const MAX_COMPILED = 200;

/** The compiled validator, or the Error that compiling raised (a bad $ref, an invalid pattern). */
export function compileSchema(schema: unknown): ValidateFunction | Error {
  const key = JSON.stringify(schema);
  let entry = compiled.get(key);
  if (!entry) {
    try {
      entry = makeAjv().compile(schema as JsonSchema);
    } catch (error) {
      entry = error instanceof Error ? error : new Error(String(error));
    }
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, entry);
  }
  return entry;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

/**
 * Problems with a schema itself, each "path: reason" where the path points into the schema:
 * meta-schema violations (draft-07), then patterns that are not regular expressions and
 * references that do not resolve.
 */
export function schemaProblems(schema: unknown): string[] {
  if (isObject(schema) && schema.$schema !== undefined && !(typeof schema.$schema === "string" && DRAFT_07.test(schema.$schema))) {
    return ["/$schema: only JSON Schema draft-07 is supported (http://json-schema.org/draft-07/schema#)"];
  }
  if (!metaAjv.validateSchema(schema as JsonSchema)) {
    // Ajv reports one violation several ways (a bad type: enum, array, anyOf): the first per path says it.
    const byPath = new Map<string, string>();
    for (const e of metaAjv.errors ?? []) if (!byPath.has(e.instancePath)) byPath.set(e.instancePath, e.message ?? "invalid");
    return [...byPath].map(([path, message]) => `${path || "/"}: ${message}`);
  }
  const patterns = badPatterns(schema, "");
  if (patterns.length > 0) return patterns;
  const validator = compileSchema(schema);
  if (!(validator instanceof Error)) return [];
  const missing = (validator as { missingRef?: string }).missingRef;
  const at = missing ? refPaths(schema, "").find((r) => missing === r.ref || missing.endsWith(r.ref))?.path : undefined;
  return [`${at === undefined ? "/" : `${at}/$ref`}: ${validator.message}`];
}

function badPatterns(node: unknown, path: string): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => badPatterns(item, `${path}/${i}`));
  if (!isObject(node)) return [];
  const out: string[] = [];
  const check = (source: string, at: string) => {
    try {
      new RegExp(source, "u");
    } catch {
      out.push(`${at}: not a valid regular expression`);
    }
  };
  if (typeof node.pattern === "string") check(node.pattern, `${path}/pattern`);
  if (isObject(node.patternProperties))
    for (const key of Object.keys(node.patternProperties)) check(key, `${path}/patternProperties/${escapePointer(key)}`);
  for (const [key, child] of Object.entries(node)) {
    if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples")
      out.push(...badPatterns(child, `${path}/${escapePointer(key)}`));
  }
  return out;
}

function refPaths(node: unknown, path: string): { path: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => refPaths(item, `${path}/${i}`));
  if (!isObject(node)) return [];
  const own = typeof node.$ref === "string" ? [{ path, ref: node.$ref }] : [];
  return [
    ...own,
    ...Object.entries(node).flatMap(([key, child]) =>
      key === "enum" || key === "const" ? [] : refPaths(child, `${path}/${escapePointer(key)}`),
    ),
  ];
}

/**
 * Problems of `value` against `schema`, each "path: reason" with the path prefixed by `path`.
 * A schema that cannot be compiled is one problem at its root: nothing can be said to fit it.
 */
export function validate(schema: unknown, value: unknown, path = ""): string[] {
  if (!isObject(schema)) return [];
  const validator = compileSchema(schema);
  if (validator instanceof Error) return [`${path || "/"}: schema cannot be used (${validator.message})`];
  if (validator(value)) return [];
  return dedupe((validator.errors ?? []).map((e) => describe(e, path)));
}

/**
 * Problems of one top-level property's value, judged inside the whole schema (so a "$ref" into
 * its definitions resolves): only problems at or below that property count.
 */
export function validateProperty(schema: JsonSchema, name: string, value: unknown): string[] {
  const validator = compileSchema(schema);
  if (validator instanceof Error) return [`/${name}: schema cannot be used (${validator.message})`];
  if (validator({ [name]: value })) return [];
  const own = `/${escapePointer(name)}`;
  return dedupe(
    (validator.errors ?? []).filter((e) => e.instancePath === own || e.instancePath.startsWith(`${own}/`)).map((e) => describe(e, "")),
  );
}

function describe(error: ErrorObject, path: string): string {
  const at = `${path}${error.instancePath}`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${at}/${String(params.missingProperty)}: required`;
    case "additionalProperties":
      return `${at}/${String(params.additionalProperty)}: not allowed (additionalProperties)`;
    case "pattern":
      // The pattern is the account's; the reason is enough.
      return `${at || "/"}: does not match pattern`;
    case "enum":
      return `${at || "/"}: must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return `${at || "/"}: ${error.message ?? error.keyword}`;
  }
}

function escapePointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

function dedupe(items: string[]): string[] {
  return [...new Set(items)];
}

/**
 * The types a (sub)schema admits, for the filler's coercion: its `type`, else the types of its
 * `anyOf`/`oneOf` branches, else the type of its `const`.
 */
export function declaredTypes(schema: JsonSchema): string[] {
  const t = schema.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      const types = branches.filter(isObject).flatMap(declaredTypes);
      if (types.length > 0) return [...new Set(types)];
    }
  }
  if ("const" in schema) return [schema.const === null ? "null" : Array.isArray(schema.const) ? "array" : typeof schema.const];
  return [];
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
