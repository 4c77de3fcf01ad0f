// The transport that keeps pooled MCP servers connected (src/mcp/reply-transport.ts), with the
// SDK's real Server on the other side, and the POST /mcp endpoint it serves: replies go to the
// request that asked, under the client's own id, whatever ids other requests in flight carry; a
// slow call holds up nothing else; a cancellation cannot reach a request it did not make.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { ReplyTransport } from "../../src/mcp/reply-transport.ts";
import { isPlainRequest } from "../../src/mcp/streamable-http.ts";
import { hostileJson } from "../fuzz/hostile.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

/** A connected SDK server whose one tool answers its argument `n` once `gate(n)` resolves. */
function echoServer(gate: (n: number) => Promise<void> = async () => {}) {
  const server = new Server({ name: "echo", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const n = Number(request.params.arguments?.n);
    await gate(n);
    return { content: [{ type: "text", text: String(n) }], structuredContent: { n } };
  });
  const transport = new ReplyTransport();
  void server.connect(transport);
  return { server, transport };
}

const call = (id: string | number, n: number) =>
  ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { n } } }) as const;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("ReplyTransport with the SDK's Server", () => {
  test("concurrent requests on one server, all with the client id 1, each get their own reply", async () => {
    // Answered in reverse order of arrival, so a reply matched by arrival would be wrong.
    const gates = Array.from({ length: 20 }, () => deferred());
    const { transport } = echoServer((n) => gates[n]!.promise);
    const replies = Array.from({ length: 20 }, (_, n) => transport.request(call(1, n)));
    for (let n = 19; n >= 0; n--) gates[n]!.resolve();
    const answered = await Promise.all(replies);
    answered.forEach((reply, n) => {
      expect(reply).toMatchObject({ jsonrpc: "2.0", id: 1, result: { structuredContent: { n } } });
    });
    expect(transport.inFlight).toBe(0);
  });

  test("string and numeric ids come back as the client sent them", async () => {
    const { transport } = echoServer();
    expect((await transport.request(call("abc", 1))).id).toBe("abc");
    expect((await transport.request(call(0, 2))).id).toBe(0);
    expect((await transport.request(call(-9007199254740991, 3))).id).toBe(-9007199254740991);
  });

  test("a slow call holds up neither another call on its server nor another server", async () => {
    const slow = deferred();
    const first = echoServer((n) => (n === 0 ? slow.promise : Promise.resolve()));
    const other = echoServer();
    const pending = first.transport.request(call(1, 0));
    expect(await first.transport.request(call(1, 1))).toMatchObject({ result: { structuredContent: { n: 1 } } });
    expect(await other.transport.request(call(1, 2))).toMatchObject({ result: { structuredContent: { n: 2 } } });
    expect(first.transport.inFlight).toBe(1);
    slow.resolve();
    expect(await pending).toMatchObject({ id: 1, result: { structuredContent: { n: 0 } } });
  });

  test("a cancellation notification does not cancel a request in flight (ids are renumbered, per request)", async () => {
    const slow = deferred();
    const { transport } = echoServer(() => slow.promise);
    const pending = transport.request(call(1, 7));
    // The transport's own id for that request is 1 as well: a forwarded cancellation would hit it.
    transport.notify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    slow.resolve();
    expect(await pending).toMatchObject({ id: 1, result: { structuredContent: { n: 7 } } });
  });

  test("closing answers what still waits instead of leaving it hanging", async () => {
    const { server, transport } = echoServer(() => new Promise(() => {}));
    const pending = transport.request(call("x", 1));
    await server.close();
    expect(await pending).toEqual({ jsonrpc: "2.0", id: "x", error: { code: ErrorCode.ConnectionClosed, message: "Connection closed" } });
    await expect(transport.request(call("y", 1))).rejects.toThrow(/closed/);
  });

  test("an unknown method is the SDK's -32601, under the client's id", async () => {
    const { transport } = echoServer();
    const reply = await transport.request({ jsonrpc: "2.0", id: "m", method: "prompts/list" });
    expect(reply).toMatchObject({ jsonrpc: "2.0", id: "m", error: { code: ErrorCode.MethodNotFound } });
  });
});

test("the envelope fast path accepts only what the SDK's JSONRPCMessageSchema accepts", () => {
  const envelope = fc.record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), hostileJson()),
      id: fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 53), fc.string({ maxLength: 4 }), hostileJson()),
      method: fc.oneof(fc.constantFrom("tools/call", "ping"), hostileJson()),
      params: fc.oneof(fc.constant({ name: "x", arguments: {} }), fc.constant({ _meta: { progressToken: {} } }), hostileJson()),
      extra: hostileJson(),
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(fc.oneof(envelope, hostileJson()), (value) => {
      if (isPlainRequest(value)) expect(JSONRPCMessageSchema.safeParse(value).success).toBe(true);
    }),
    { numRuns: 400 },
  );
  // And it does take the common request.
  expect(isPlainRequest(call(1, 1))).toBe(true);
});

describe("POST /mcp on pooled servers", () => {
  let ctx: TestContext;
  let owner: Fixture;

  beforeAll(async () => {
    ctx = await makeTestContext({ RATE_LIMIT_PER_SECOND: "0" });
    owner = await makeAccount(ctx);
    await makeMailbox(ctx, owner, "replies");
  });
  afterAll(() => ctx.close());

  const post = (body: unknown) =>
    ctx.app.handle(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${owner.key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(body),
      }),
    );

  test("concurrent calls of one key, with distinct and repeated ids, each get their own answer", async () => {
    const requests = Array.from({ length: 24 }, (_, i) =>
      i % 3 === 0
        ? { jsonrpc: "2.0", id: `ping-${i}`, method: "ping" }
        : {
            jsonrpc: "2.0",
            id: i % 2 ? 1 : `list-${i}`,
            method: "tools/call",
            params: { name: "list_mailboxes", arguments: { limit: i } },
          },
    );
    const replies = await Promise.all(requests.map(async (request) => (await post(request)).json() as Promise<any>));
    replies.forEach((reply, i) => {
      expect(reply.id).toBe(requests[i]!.id);
      if (i % 3 === 0) expect(reply.result).toEqual({});
      else expect(reply.result.structuredContent.mailboxes).toHaveLength(1);
    });
  });

  test("notifications and responses alone are 202 with no body; a one-request batch is answered as one object", async () => {
    for (const body of [
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      { jsonrpc: "2.0", id: 5, result: {} },
      [],
    ]) {
      const response = await post(body);
      expect({ body, status: response.status, text: await response.text() }).toEqual({ body, status: 202, text: "" });
    }
    const batch = await post([{ jsonrpc: "2.0", id: 9, method: "ping" }]);
    expect(await batch.json()).toEqual({ jsonrpc: "2.0", id: 9, result: {} });
  });
});
