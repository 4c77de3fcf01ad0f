// The one place where text a client sends becomes text Postgres can hold. Postgres `text` refuses
// NUL, and a lone UTF-16 surrogate has no UTF-8 form; an undecodable percent-escape reaches a
// handler as null. Every API route (route-kit.ts) and every MCP tool (mcp/tool.ts) go through here.
//
// Two answers, by where the text sits:
// - an identifier in the path or the query names something; no id we issue holds such characters,
//   so it is turned into a name that matches nothing and goes the ordinary way: the route answers
//   exactly what it answers for any unknown id (its own 404 body, or the empty list of a mailbox
//   that is not the account's), with no per-route table to keep in step as routes are added;
// - a string in a JSON body is content the client asked us to store: storing something else
//   silently would be wrong, so it is a 400.

/** What an undecodable or unstorable identifier becomes: U+FFFD, which no issued id contains. */
const UNMATCHABLE = "\uFFFD";

const NUL = /\0/g;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE.source);

/** An identifier from a path or a query, made storable; null (undecodable) matches nothing. */
export function storableIdentifier(value: unknown): string {
  if (typeof value !== "string") return UNMATCHABLE;
  return value.replace(NUL, UNMATCHABLE).replace(LONE_SURROGATE, UNMATCHABLE);
}

/** Rewrites, in place, every path parameter and query value of a request to storable text. */
export function normalizeRequestIdentifiers(context: { params?: Record<string, unknown>; query?: Record<string, unknown> }): void {
  for (const bag of [context.params, context.query]) {
    if (!bag) continue;
    for (const [name, value] of Object.entries(bag)) {
      if (Array.isArray(value)) bag[name] = value.map(storableIdentifier);
      else if (value === null || typeof value === "string") bag[name] = storableIdentifier(value);
    }
  }
}

/** Why a parsed JSON value cannot be stored as sent, or null when every string and key can. */
export function unstorableTextIn(value: unknown): string | null {
  if (typeof value === "string") return unstorableText(value);
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = unstorableTextIn(item);
      if (problem) return problem;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const problem = unstorableText(key) ?? unstorableTextIn(item);
      if (problem) return problem;
    }
  }
  return null;
}

function unstorableText(text: string): string | null {
  if (text.includes("\0")) return "strings must not contain NUL characters";
  if (HAS_LONE_SURROGATE.test(text)) return "strings must be well-formed Unicode (no lone surrogates)";
  return null;
}
