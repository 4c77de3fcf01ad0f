// A validator for the part of JSON Schema an extraction schema uses: type, properties,
// required, enum, items, minimum/maximum, minLength/maxLength, pattern. Other keywords are
// left alone (neither enforced nor rejected). Both engines check what they fill with it, so a
// mailbox gets the same guarantee whichever engine ran.

export type JsonSchema = Record<string, unknown>;

// Values come from untrusted mail and patterns from an account: cap what a pattern may be run
// on, and skip patterns with a quantified group that itself holds a quantifier ("(a+)+"), the
// shape of catastrophic backtracking, rather than let one schema stall a shared worker.
const MAX_PATTERN_INPUT = 1000;
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.){0,200}[+*}](?:[^()\\]|\\.){0,200}\)[+*{]/;

export function validate(schema: unknown, value: unknown, path = ""): string[] {
  if (!isObject(schema)) return [];
  const errors: string[] = [];
  const at = path || "/";

  const types = declaredTypes(schema);
  if (types.length > 0 && !types.some((t) => hasType(value, t))) {
    return [`${at}: expected ${types.join(" or ")}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => sameValue(e, value))) {
    errors.push(`${at}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) errors.push(`${at}: must be >= ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) errors.push(`${at}: must be <= ${schema.maximum}`);
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === "number" && length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
    const re = typeof schema.pattern === "string" ? compilePattern(schema.pattern) : null;
    if (re && (value.length > MAX_PATTERN_INPUT || !re.test(value))) errors.push(`${at}: does not match pattern`);
  }
  if (Array.isArray(value) && isObject(schema.items)) {
    value.forEach((item, i) => errors.push(...validate(schema.items, item, `${path}/${i}`)));
  }
  if (isObject(value)) {
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) {
        if (typeof name === "string" && !(name in value)) errors.push(`${path}/${name}: required`);
      }
    }
    if (isObject(schema.properties)) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        if (name in value) errors.push(...validate(sub, value[name], `${path}/${name}`));
      }
    }
  }
  return errors;
}

export function declaredTypes(schema: JsonSchema): string[] {
  const t = schema.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  return [];
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "string": return typeof value === "string";
    case "number": return typeof value === "number" && Number.isFinite(value);
    case "integer": return typeof value === "number" && Number.isInteger(value);
    case "boolean": return typeof value === "boolean";
    case "null": return value === null;
    case "array": return Array.isArray(value);
    case "object": return isObject(value);
    default: return true; // an unknown type name is not ours to reject
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === "object" && a !== null && JSON.stringify(a) === JSON.stringify(b));
}

const patterns = new Map<string, RegExp | null>();

function compilePattern(source: string): RegExp | null {
  if (!patterns.has(source)) {
    let re: RegExp | null = null;
    if (!NESTED_QUANTIFIER.test(source)) {
      try {
        re = new RegExp(source, "u");
      } catch {
        re = null; // an invalid pattern cannot be enforced; the schema's author hears of it elsewhere
      }
    }
    if (patterns.size > 500) patterns.clear();
    patterns.set(source, re);
  }
  return patterns.get(source)!;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
