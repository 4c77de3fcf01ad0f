// Identifiers and strings no client could have been given (NUL, bytes that are not UTF-8, invalid
// percent-encoding, lone surrogates, any length) get the contract's answer for an unknown id: the
// resource's own 404 body, or the empty list of a mailbox that is not the account's. Never a 500
// (Postgres refuses NUL), never a 400 naming a schema rule, never a generic body.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;
let mailboxId: string;
let boundKey: string;

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx, { plan: "paid" });
  mailboxId = (await makeMailbox(ctx, owner, "malformed")).id;
  boundKey = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId });
});

afterAll(() => ctx.close());

// Raw path segments, as a client would put them on the wire (not re-encoded).
const ODD_SEGMENTS = [
  "%00",
  "msg_a%00b",
  "drf_a%00",
  "%ff",
  "%ff%fe",
  "%c3",
  "%ed%a0%80",
  "%",
  "%zz",
  "abc%",
  "%e2%82",
  "%f4%90%80%80",
  "mbx_" + "x".repeat(5000),
  "%ef%bf%bf",
  "%01%1f%7f",
  "..%2f..%2f",
  "%u0000",
];

const send = (method: string, path: string, key: string | null = owner.key, body?: unknown) => ctx.request(method, path, { key, body });

describe("a malformed id in the path is the resource's own 404", () => {
  const cases: [method: string, path: (id: string) => string, body: string][] = [
    ["GET", (id) => `/api/v1/messages/${id}`, '{"error":"message not found"}'],
    ["GET", (id) => `/api/v1/messages/${id}/attachments/att_x`, '{"error":"message not found"}'],
    ["GET", (id) => `/api/v1/drafts/${id}`, '{"error":"draft not found"}'],
    ["PATCH", (id) => `/api/v1/drafts/${id}`, '{"error":"draft not found"}'],
    ["DELETE", (id) => `/api/v1/drafts/${id}`, '{"error":"draft not found"}'],
    ["POST", (id) => `/api/v1/drafts/${id}/send`, '{"error":"draft not found"}'],
    ["POST", (id) => `/api/v1/domains/${id}/verify`, '{"error":"not found"}'],
  ];
  for (const [method, path, expected] of cases) {
    test(`${method} ${path(":id")}`, async () => {
      const unknown = await send(method, path("zz_unknown"));
      expect({ status: unknown.status, text: unknown.text }).toEqual({ status: 404, text: expected });
      for (const segment of ODD_SEGMENTS) {
        const reply = await send(method, path(segment));
        expect({ segment, status: reply.status, text: reply.text }).toEqual({ segment, status: 404, text: expected });
      }
    });
  }

  test("a malformed attachment id of a real message is the attachment's 404", async () => {
    const [message] = await ctx.sql`
      insert into messages (id, account_id, mailbox_id, direction, thread_id, from_addr, to_addr, subject)
      values ('msg_malformedidtest', ${owner.accountId}, ${mailboxId}, 'out', 'thr_malformedidtest', 'a@example.org', 'b@example.org', 's')
      returning id`;
    const unknown = await send("GET", `/api/v1/messages/${message!.id}/attachments/att_unknown`);
    expect(unknown.status).toBe(404);
    for (const segment of ODD_SEGMENTS) {
      const reply = await send("GET", `/api/v1/messages/${message!.id}/attachments/${segment}`);
      expect({ segment, status: reply.status, text: reply.text }).toEqual({ segment, status: 404, text: unknown.text });
    }
  });

  test("without a key it is 401, as for any id: the bearer is checked first", async () => {
    for (const segment of ["msg_a%00b", "%ff%fe", "%"]) {
      const reply = await send("GET", `/api/v1/messages/${segment}`, null);
      expect({ status: reply.status, text: reply.text }).toEqual({ status: 401, text: '{"error":"missing bearer token"}' });
    }
  });
});

describe("a malformed mailbox_id in the query is a mailbox that is not the account's", () => {
  for (const [path, key] of [
    ["/api/v1/messages", "messages"],
    ["/api/v1/drafts", "drafts"],
  ] as const) {
    test(`GET ${path}: an empty list, as for an unknown mailbox`, async () => {
      const unknown = await send("GET", `${path}?mailbox_id=mbx_unknown`);
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 200, body: { [key]: [] } });
      for (const value of ODD_SEGMENTS) {
        const reply = await send("GET", `${path}?mailbox_id=${value}`);
        expect({ value, status: reply.status, text: reply.text }).toEqual({ value, status: 200, text: unknown.text });
      }
    });

    test(`GET ${path}: a key bound to another mailbox gets the same 403 as for an unknown mailbox`, async () => {
      const unknown = await send("GET", `${path}?mailbox_id=mbx_unknown`, boundKey);
      expect(unknown.status).toBe(403);
      for (const value of ["%00", "mbx_a%00b", "%ff", "%ed%a0%80"]) {
        const reply = await send("GET", `${path}?mailbox_id=${value}`, boundKey);
        expect({ value, status: reply.status, text: reply.text }).toEqual({ value, status: 403, text: unknown.text });
      }
    });
  }
});

describe("strings in a JSON body", () => {
  test("a lone surrogate is refused as a validation error, like NUL, and never stored", async () => {
    for (const text of ['"\\ud800"', '"a\\udc00b"', '"\\udbff\\u0041"']) {
      const body = `{"mailbox_id":"${mailboxId}","to":"a@example.org","text":${text}}`;
      const reply = await ctx.request("POST", "/api/v1/drafts", { key: owner.key, body, headers: { "content-type": "application/json" } });
      expect({ text, status: reply.status }).toEqual({ text, status: 400 });
      expect(Object.keys(reply.body)).toEqual(["error"]);
    }
    const [{ count }] = (await ctx.sql`select count(*)::int as count from drafts where mailbox_id = ${mailboxId}`) as unknown as [
      { count: number },
    ];
    expect(count).toBe(0);
  });

  test("a well-formed pair and a text that merely spells \\u0000 are accepted", async () => {
    const body = `{"mailbox_id":"${mailboxId}","to":"a@example.org","text":"emoji \\ud83d\\ude00 and a literal \\\\u0000"}`;
    const reply = await ctx.request("POST", "/api/v1/drafts", { key: owner.key, body, headers: { "content-type": "application/json" } });
    expect(reply.status).toBe(201);
    const draft = await send("GET", `/api/v1/drafts/${reply.body.id}`);
    expect(draft.body.text).toBe("emoji \u{1F600} and a literal \\u0000");
  });
});

describe("MCP tool arguments are a JSON body: the same rule", () => {
  test("a lone surrogate or NUL in any argument is a 400 tool error, never a 500", async () => {
    const mcpKey = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp" });
    const call = async (name: string, args: string) => {
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;
      const response = await ctx.app.handle(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: {
            authorization: `Bearer ${mcpKey}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
          },
          body,
        }),
      );
      return { status: response.status, body: (await response.json()) as any };
    };
    for (const [name, args, error] of [
      ["get_message", '{"id":"msg_\\ud800"}', "strings must be well-formed Unicode (no lone surrogates)"],
      ["list_messages", `{"mailbox_id":"${mailboxId}\\udc00"}`, "strings must be well-formed Unicode (no lone surrogates)"],
      ["list_messages", '{"mailbox_id":"mbx_\\u0000"}', "strings must not contain NUL characters"],
    ] as const) {
      const reply = await call(name, args);
      expect(reply.status).toBe(200);
      expect({ args, result: reply.body.result.structuredContent }).toEqual({ args, result: { status: 400, error } });
    }
  });
});
