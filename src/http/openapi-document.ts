// Builds /openapi.json from the routes' own TypeBox schemas (the single source of truth).
// Our bodies are parsed by the auth macro's strict JSON parser, which the generator cannot see,
// so request bodies are written here from each route's schema, as JSON only.
import { toOpenAPISchema } from "@elysiajs/openapi/openapi";
import type { AnyElysia } from "elysia";
import { apiDescription } from "./description.ts";

// TypeBox marks t.Optional(...) with this registered symbol.
const OptionalKind = Symbol.for("TypeBox.Optional");
const hiddenPaths = ["/healthz", "/readyz", "/docs", "/openapi.json"];

const errorBody = { type: "object", required: ["error"], properties: { error: { type: "string" } }, additionalProperties: false };
// Every write reads its body through the same parser (route-kit.ts), bodiless routes included:
// whatever a client sends there is checked as any body is, and these are the answers.
const bodyErrors: Record<string, string> = {
  "400": "a request body, when sent, must be a JSON object (an empty body counts as none) without NUL characters or lone surrogates",
  "413": "request body too large (MAX_REQUEST_BYTES)",
  "415": "a non-empty body sent under a Content-Type other than application/json (or a +json type)",
};

/** Documents the body parser's 400, 413 and 415 on every write, beside what the route itself lists. */
function documentBodyErrors(method: string, operation: Record<string, any>): void {
  if (method === "get") return;
  operation.responses ??= {};
  for (const [status, description] of Object.entries(bodyErrors)) {
    const existing = operation.responses[status];
    const schema = existing?.content?.["application/json"]?.schema;
    if (!existing) {
      operation.responses[status] = { description, content: { "application/json": { schema: errorBody } } };
    } else if (schema && !acceptsPlainError(schema)) {
      existing.content["application/json"].schema = { anyOf: [schema, { ...errorBody, description }] };
    }
  }
}

/**
 * The generator renders a nullable union of literals as `type: [string, null]` with an `enum` of
 * the strings alone, which refuses null (JSON Schema checks both): null belongs in the enum too.
 */
function allowNullInEnums(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) allowNullInEnums(item);
    return;
  }
  if (!node || typeof node !== "object") return;
  const schema = node as Record<string, any>;
  if (Array.isArray(schema.type) && schema.type.includes("null") && Array.isArray(schema.enum) && !schema.enum.includes(null)) {
    schema.enum = [...schema.enum, null];
  }
  for (const value of Object.values(schema)) allowNullInEnums(value);
}

/** Whether `{error: "..."}` alone fits the schema (a plain error body, or a union holding one). */
function acceptsPlainError(schema: Record<string, any>): boolean {
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some(acceptsPlainError);
  const required: string[] = schema.required ?? [];
  return schema.type === "object" && required.every((name) => name === "error");
}

// Sent on every answer of an admitted or refused request while limits are on (RATE_LIMIT_PER_SECOND > 0).
const rateLimitFields = {
  "RateLimit-Policy": {
    description: 'the key\'s limit (draft-ietf-httpapi-ratelimit-headers): `"per-key";q=<burst>;w=<seconds to refill it>`',
    schema: { type: "string" },
  },
  RateLimit: {
    description: 'what is left: `"per-key";r=<requests left>;t=<seconds until the bucket is full>`; r=0 and t=Retry-After on a 429',
    schema: { type: "string" },
  },
};
const retryAfter = {
  "Retry-After": { description: "whole seconds to wait before the next request of this key", schema: { type: "integer", minimum: 1 } },
};

/** Every rate-limited operation (it lists a 429) sends the RateLimit fields on 2xx and 429, and Retry-After on 429. */
function documentRateLimitFields(operation: Record<string, any>): void {
  const responses: Record<string, Record<string, any>> = operation.responses ?? {};
  if (!responses["429"]) return;
  for (const [status, response] of Object.entries(responses)) {
    if (status === "429") response.headers = { ...response.headers, ...retryAfter, ...rateLimitFields };
    else if (/^2\d\d$/.test(status)) response.headers = { ...response.headers, ...rateLimitFields };
  }
}

export function buildOpenApiDocument(app: AnyElysia): Record<string, any> {
  const generated = toOpenAPISchema(app, { paths: hiddenPaths, staticFile: false }, undefined, undefined, "3.1.0") as {
    paths: Record<string, Record<string, any>>;
    components: Record<string, unknown>;
  };
  for (const methods of Object.values(generated.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      documentBodyErrors(method, operation);
      // A 204 has no body; the generator renders t.Void() as a malformed content map.
      const noContent = operation.responses?.["204"];
      if (noContent) operation.responses["204"] = { description: noContent.description ?? "No content" };
    }
  }
  for (const route of app.routes) {
    const body = (route.hooks as { body?: Record<string | symbol, unknown> } | undefined)?.body;
    const path = route.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const operation = generated.paths[path]?.[route.method.toLowerCase()];
    if (!operation || !body || typeof body !== "object") continue;
    operation.requestBody = {
      required: body[OptionalKind] !== "Optional",
      content: { "application/json": { schema: JSON.parse(JSON.stringify(body)) } },
    };
  }
  allowNullInEnums(generated.paths);
  // Older mail travels in a header so the contract's list body (docs/api.md) stays as it is; the generator cannot see headers.
  const messageList = generated.paths["/api/v1/messages"]?.get?.responses?.["200"];
  if (messageList) {
    messageList.headers = {
      "x-next-cursor": { description: "present when older messages may remain: pass it as `cursor`", schema: { type: "string" } },
    };
  }
  for (const methods of Object.values(generated.paths)) {
    for (const operation of Object.values(methods)) documentRateLimitFields(operation);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Agent Mailbox API", version: "1.0.0", description: apiDescription },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths: generated.paths,
    components: {
      ...generated.components,
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key: `svc_` followed by the secret" } },
    },
  };
}
