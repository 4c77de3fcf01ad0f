// Builds /openapi.json from the routes' own TypeBox schemas (the single source of truth).
// Our bodies are parsed by the auth macro's strict JSON parser, which the generator cannot see,
// so request bodies are written here from each route's schema, as JSON only.
import { toOpenAPISchema } from "@elysiajs/openapi/openapi";
import type { AnyElysia } from "elysia";
import { apiDescription } from "./description.ts";

// TypeBox marks t.Optional(...) with this registered symbol.
const OptionalKind = Symbol.for("TypeBox.Optional");
const hiddenPaths = ["/healthz", "/readyz", "/docs", "/openapi.json"];

export function buildOpenApiDocument(app: AnyElysia): Record<string, any> {
  const generated = toOpenAPISchema(app, { paths: hiddenPaths, staticFile: false }, undefined, undefined, "3.1.0") as {
    paths: Record<string, Record<string, any>>;
    components: Record<string, unknown>;
  };
  for (const methods of Object.values(generated.paths)) {
    for (const operation of Object.values(methods)) {
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
  // Older mail travels in a header so SPEC's list body stays as it is; the generator cannot see headers.
  const messageList = generated.paths["/api/v1/messages"]?.get?.responses?.["200"];
  if (messageList) {
    messageList.headers = {
      "x-next-cursor": { description: "present when older messages may remain: pass it as `cursor`", schema: { type: "string" } },
    };
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
