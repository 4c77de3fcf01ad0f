// Error shapes the whole API shares: unknown routes, oversized bodies, and broken requests that
// must come back as the contract's JSON, never HTML, a stack trace or an Elysia default body.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

const LIMIT = 2048;

let ctx: TestContext;
let paid: Fixture;

beforeAll(async () => {
  ctx = await makeTestContext({ MAX_REQUEST_BYTES: String(LIMIT), HTTP_PORT: "0", DNS_SERVERS: "127.0.0.1:9", DNS_TIMEOUT_MS: "100" });
  paid = await makeAccount(ctx, { plan: "paid" });
});

afterAll(() => ctx.close());

type Reply = { status: number; text: string; headers: Headers };

/** The contract's error: JSON content type, a JSON object with a string `error`, nothing else leaking. */
function expectContractError(reply: Reply, status?: number) {
  if (status !== undefined) expect(reply.status).toBe(status);
  expect(reply.status).toBeGreaterThanOrEqual(400);
  expect(reply.headers.get("content-type") ?? "").toStartWith("application/json");
  const body = JSON.parse(reply.text);
  expect(typeof body).toBe("object");
  expect(Array.isArray(body)).toBe(false);
  expect(typeof body.error).toBe("string");
  for (const key of Object.keys(body)) expect(["error", "code"]).toContain(key);
  // Elysia's defaults: an HTML page, a VALIDATION/PARSE/NOT_FOUND text, or a body echoing the input.
  for (const leak of ["<", "stack", "    at ", "VALIDATION", "PARSE", "NOT_FOUND", '"type":"validation"', '"found"', '"expected"']) {
    expect(reply.text).not.toContain(leak);
  }
}

describe("unknown routes", () => {
  const cases: [string, string][] = [
    ["GET", "/"],
    ["GET", "/nope"],
    ["GET", "/api/v1/nope"],
    ["GET", "/api/v2/mailboxes"],
    ["GET", "/API/V1/mailboxes"],
    ["DELETE", "/api/v1/mailboxes"],
    ["PUT", "/api/v1/domains"],
    ["GET", "/api/v1/domains/dom_x/verify"],
    ["POST", "/healthz"],
    ["OPTIONS", "/api/v1/mailboxes"],
  ];
  for (const [method, path] of cases) {
    test(`${method} ${path} → 404 {"error":"not found"}`, async () => {
      const reply = await ctx.request(method, path, { key: paid.key });
      expect({ status: reply.status, text: reply.text }).toEqual({ status: 404, text: '{"error":"not found"}' });
      expectContractError(reply, 404);
    });
  }

  test("without a key an unknown route is still 404, not 401", async () => {
    const reply = await ctx.request("GET", "/api/v1/nothing-here");
    expect({ status: reply.status, text: reply.text }).toEqual({ status: 404, text: '{"error":"not found"}' });
  });
});

describe("bodies over MAX_REQUEST_BYTES", () => {
  const TOO_LARGE = '{"error":"request body too large"}';
  const sized = (bytes: number) => JSON.stringify({ display_name: "x".repeat(bytes - '{"display_name":""}'.length) });

  test("a declared Content-Length over the limit is 413 JSON, before authentication", async () => {
    const body = sized(LIMIT + 1);
    for (const key of [paid.key, undefined]) {
      const reply = await ctx.request("POST", "/api/v1/mailboxes", { key, body, headers: { "content-length": String(body.length) } });
      expect({ status: reply.status, text: reply.text }).toEqual({ status: 413, text: TOO_LARGE });
      expectContractError(reply, 413);
    }
  });

  test("a body of exactly the limit is read (and judged on its content)", async () => {
    const body = sized(LIMIT);
    expect(body.length).toBe(LIMIT);
    const reply = await ctx.request("POST", "/api/v1/mailboxes", { key: paid.key, body, headers: { "content-length": String(LIMIT) } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: "display_name must be at most 200 characters" });
  });

  test("a body streamed without Content-Length over the limit is 413 JSON too", async () => {
    const bytes = new TextEncoder().encode(sized(LIMIT * 4));
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    const request = new Request("http://localhost/api/v1/mailboxes", {
      method: "POST",
      headers: { authorization: `Bearer ${paid.key}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const response = await ctx.app.handle(request);
    const reply = { status: response.status, text: await response.text(), headers: response.headers };
    expect({ status: reply.status, text: reply.text }).toEqual({ status: 413, text: TOO_LARGE });
  });

  describe("through the real HTTP server", () => {
    let server: HttpServer;
    beforeAll(() => {
      server = startHttpServer(ctx.svc, ctx.app);
    });
    afterAll(() => server.stop());

    test("an oversized body is 413 with the JSON error body, not the server's empty default", async () => {
      const response = await fetch(`http://127.0.0.1:${server.port}/api/v1/mailboxes`, {
        method: "POST",
        headers: { authorization: `Bearer ${paid.key}`, "content-type": "application/json" },
        body: sized(LIMIT * 4),
      });
      const reply = { status: response.status, text: await response.text(), headers: response.headers };
      expect({ status: reply.status, text: reply.text }).toEqual({ status: 413, text: TOO_LARGE });
      expectContractError(reply, 413);
    });

    test("a small request is served normally and carries a request id", async () => {
      const response = await fetch(`http://127.0.0.1:${server.port}/api/v1/nope`);
      expect(response.status).toBe(404);
      expect(await response.text()).toBe('{"error":"not found"}');
      expect(response.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{24}$/);
    });
  });
});

describe("broken requests get the contract's JSON", () => {
  const post = (path: string, body: unknown, headers?: Record<string, string>) =>
    ctx.request("POST", path, { key: paid.key, body, headers });

  const wrongTypes: [string, unknown, string][] = [
    ["/api/v1/mailboxes", { slug: 5 }, "slug must be a string"],
    // biome-ignore lint/correctness/noPrecisionLoss: a number too long for a double is the point
    ["/api/v1/mailboxes", { display_name: 123456789012345678901234567890 }, "display_name must be a string"],
    ["/api/v1/mailboxes", '{"display_name":1e999}', "display_name must be a string"],
    ["/api/v1/mailboxes", { display_name: ["a"] }, "display_name must be a string"],
    ["/api/v1/mailboxes", { domain_id: {} }, "domain_id must be a string"],
    ["/api/v1/mailboxes", { extraction_schema_id: "" }, "extraction_schema_id must be 1 to 100 characters"],
    ["/api/v1/mailboxes", '{"__proto__":{"slug":"x"}}', "unknown field '__proto__'"],
    ["/api/v1/domains", { name: { a: 1 } }, "name must be a string"],
    ["/api/v1/domains", { name: ["a.example"] }, "name must be a string"],
    ["/api/v1/domains", { name: true }, "name must be a string"],
    ["/api/v1/domains", "null", "request body must be a JSON object"],
    ["/api/v1/domains", "{", "request body is not valid JSON"],
    ["/api/v1/domains", "slug=abc", "request body is not valid JSON"],
  ];
  for (const [path, body, error] of wrongTypes) {
    test(`POST ${path} ${typeof body === "string" ? body : JSON.stringify(body)} → 400 ${error}`, async () => {
      const reply = await post(path, body);
      expect(reply.body).toEqual({ error });
      expectContractError(reply, 400);
    });
  }

  test("a form-encoded or multipart body is refused with 415, not parsed as a form", async () => {
    const form = await post("/api/v1/mailboxes", "slug=abc", { "content-type": "application/x-www-form-urlencoded" });
    expect(form.body).toEqual({ error: "request body must be sent as application/json" });
    expectContractError(form, 415);
    const multipart = await post("/api/v1/mailboxes", '--x\r\ncontent-disposition: form-data; name="slug"\r\n\r\nabc\r\n--x--\r\n', {
      "content-type": "multipart/form-data; boundary=x",
    });
    expect(multipart.body).toEqual({ error: "request body must be sent as application/json" });
    expectContractError(multipart, 415);
  });

  test("bytes that are not UTF-8 are 400 JSON", async () => {
    const response = await ctx.app.handle(
      new Request("http://localhost/api/v1/domains", {
        method: "POST",
        headers: { authorization: `Bearer ${paid.key}`, "content-type": "application/json" },
        body: new Uint8Array([0x7b, 0x22, 0x6e, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      }),
    );
    expectContractError({ status: response.status, text: await response.text(), headers: response.headers }, 400);
  });

  // Anything that is valid JSON but not an object: the body is "optional", not "anything goes".
  for (const body of ["[]", "null", "5", '"a string"', "true", '[{"slug":"arr"}]']) {
    test(`POST /api/v1/mailboxes with the JSON ${body} is 400, not a new mailbox`, async () => {
      const before = (await ctx.sql`select count(*)::int as n from mailboxes`)[0]!.n;
      const reply = await post("/api/v1/mailboxes", body);
      expect({ status: reply.status, body: reply.body }).toEqual({ status: 400, body: { error: "request body must be a JSON object" } });
      expect((await ctx.sql`select count(*)::int as n from mailboxes`)[0]!.n).toBe(before);
    });
  }

  test("POST /api/v1/domains with a JSON array is 400 request body must be a JSON object", async () => {
    const reply = await post("/api/v1/domains", '[{"name":"array.example"}]');
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 400, body: { error: "request body must be a JSON object" } });
  });

  test("huge and odd numbers in the query are 400 or clamped, never 500", async () => {
    for (const [query, status] of [
      ["?limit=1e400", 400],
      ["?limit=-5", 400],
      ["?limit=NaN", 400],
      ["?limit=99999999999999999999999", 200],
    ] as const) {
      const reply = await ctx.request("GET", `/api/v1/mailboxes${query}`, { key: paid.key });
      expect({ query, status: reply.status }).toEqual({ query, status });
      if (status === 400) expectContractError(reply, 400);
    }
  });

  test("a NUL character in a string field is 400, not a database error", async () => {
    for (const body of [{ display_name: "a\u0000b" }, { extraction_schema_id: "sch_\u0000" }, { domain_id: "dom_\u0000" }]) {
      const reply = await post("/api/v1/mailboxes", body);
      expectContractError(reply, 400);
    }
    expectContractError(await post("/api/v1/domains", { name: "nul\u0000.example" }), 400);
  });

  test("a NUL character in a path id is 400 or 404, not a database error", async () => {
    const reply = await ctx.request("POST", "/api/v1/domains/dom_%00/verify", { key: paid.key });
    expectContractError(reply);
    expect([400, 404]).toContain(reply.status);
  });
});

describe("deeply nested JSON (bodies within the default size limit)", () => {
  let roomy: TestContext;
  let key: string;
  beforeAll(async () => {
    roomy = await makeTestContext();
    key = (await makeAccount(roomy)).key;
  });
  afterAll(() => roomy.close());
  const post = (body: string) => roomy.request("POST", "/api/v1/mailboxes", { key, body });

  test("deeply nested JSON inside a field is 400, not a 500", async () => {
    const depth = 5000;
    const reply = await post(`{"display_name":${"[".repeat(depth)}${"]".repeat(depth)}}`);
    expectContractError(reply, 400);
  });

  test("deeply nested JSON is refused quickly (a 20 kB body must not cost seconds of CPU)", async () => {
    const depth = 10000;
    const started = performance.now();
    const reply = await post(`${"[".repeat(depth)}${"]".repeat(depth)}`);
    const elapsed = performance.now() - started;
    expectContractError(reply, 400);
    expect(elapsed).toBeLessThan(3000); // refused by a linear scan, not after seconds of validation
  }, 30000);
});

describe("success and error content types", () => {
  test("errors are application/json; successes are JSON too", async () => {
    const error = await ctx.request("GET", "/api/v1/mailboxes");
    expect(error.headers.get("content-type")).toStartWith("application/json");
    const ok = await ctx.request("GET", "/api/v1/mailboxes", { key: paid.key });
    expect(ok.headers.get("content-type")).toStartWith("application/json");
  });

  test("health probes answer JSON and are not behind auth", async () => {
    expect(await ctx.request("GET", "/healthz")).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(await ctx.request("GET", "/readyz")).toMatchObject({ status: 200, body: { status: "ready" } });
  });
});

describe("ids of any length or shape are the one 404", () => {
  test("a very long or odd message, draft or domain id is 404 with the contract's body, not a validation error", async () => {
    for (const id of ["x".repeat(300), "msg_%20spaced", "msg_" + "é".repeat(50)]) {
      const message = await ctx.request("GET", `/api/v1/messages/${encodeURIComponent(id)}`, { key: paid.key });
      expect({ status: message.status, text: message.text }).toEqual({ status: 404, text: '{"error":"message not found"}' });
      const draft = await ctx.request("GET", `/api/v1/drafts/${encodeURIComponent(id)}`, { key: paid.key });
      expect({ status: draft.status, text: draft.text }).toEqual({ status: 404, text: '{"error":"draft not found"}' });
      const domain = await ctx.request("POST", `/api/v1/domains/${encodeURIComponent(id)}/verify`, { key: paid.key });
      expect({ status: domain.status, text: domain.text }).toEqual({ status: 404, text: '{"error":"not found"}' });
    }
  });

  test("a very long mailbox_id or reply_to_message_id in a body or query is not found, like a short unknown one", async () => {
    const long = "mbx_" + "x".repeat(300);
    const send = (body: Record<string, unknown>) =>
      ctx.request("POST", "/api/v1/send", { key: paid.key, body: { to: "a@example.org", subject: "s", text: "t", ...body } });
    for (const path of ["/api/v1/send", "/api/v1/drafts"]) {
      const post = (body: Record<string, unknown>) =>
        ctx.request("POST", path, { key: paid.key, body: { to: "a@example.org", subject: "s", text: "t", ...body } });
      const [short, longer] = [await post({ mailbox_id: "mbx_unknown" }), await post({ mailbox_id: long })];
      expect(short.status).toBe(404);
      expect({ status: longer.status, text: longer.text }).toEqual({ status: short.status, text: short.text });
    }
    const mailbox = await makeMailbox(ctx, paid, "long-ids");
    const reply = await send({ mailbox_id: mailbox.id, reply_to_message_id: "msg_" + "y".repeat(300) });
    expect({ status: reply.status, text: reply.text }).toEqual({ status: 404, text: '{"error":"message not found"}' });
    const list = await ctx.request("GET", `/api/v1/messages?mailbox_id=${long}`, { key: paid.key });
    expect({ status: list.status, body: list.body }).toEqual({ status: 200, body: { messages: [] } });
  });
});
