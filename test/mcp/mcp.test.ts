// The MCP server at /mcp, over real HTTP on loopback, driven by the official SDK client (the
// outside world's protocol implementation) and by raw JSON-RPC where the wire matters. Tools must
// answer what the HTTP API answers: same bodies, same errors, same authorization.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { runWorkerUntil } from "../support/outbound.ts";

setDefaultTimeout(30_000);

const TOOLS = [
  "list_mailboxes",
  "create_mailbox",
  "list_messages",
  "get_message",
  "wait_for_message",
  "get_message_events",
  "correct_verdict",
  "send_email",
  "forward_message",
  "rsvp",
  "create_draft",
  "list_drafts",
  "get_draft",
  "update_draft",
  "delete_draft",
  "send_draft",
  "schedule_draft",
  "unschedule_draft",
  "attach_file",
  "attach_message_attachment",
  "list_draft_attachments",
  "remove_draft_attachment",
  "list_threads",
  "get_thread",
  "search_messages",
  "get_labels",
  "change_labels",
  "get_attachment",
  "list_events",
  "open_consumer",
  "get_consumer",
  "claim_events",
  "ack_events",
  "list_domains",
  "create_domain",
  "verify_domain",
];

let ctx: TestContext;
let server: HttpServer;
let base: string;
let owner: Fixture;
let mcpKey: string;
const clients: Client[] = [];

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local", HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `http://127.0.0.1:${server.port}`;
  owner = await makeAccount(ctx);
  mcpKey = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp" });
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await server.stop();
  await ctx.close();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  clients.push(client);
  return client;
}

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

/** A raw JSON-RPC POST, as any client would send it. */
async function rpc(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null, text };
}

/** The same operation through the HTTP API, for parity. */
async function http(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const failure = (result: Result) => {
  expect(result.isError).toBe(true);
  // The text copy says the same as the structured content, and carries no stack trace.
  expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  expect(result.content[0]!.text).not.toContain("    at ");
  return result.structuredContent;
};

const success = (result: Result) => {
  expect(result.isError).toBeFalsy();
  expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  return result.structuredContent;
};

describe("protocol", () => {
  test("initialize negotiates the protocol version and announces tools; stateless: no session id", async () => {
    const init = (protocolVersion: string) =>
      rpc(
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
        },
        { authorization: `Bearer ${mcpKey}` },
      );
    const known = await init("2025-06-18");
    expect(known.status).toBe(200);
    expect(known.headers.get("content-type")).toContain("application/json");
    expect(known.headers.get("mcp-session-id")).toBeNull();
    expect(known.body).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: "2025-06-18", serverInfo: { name: "agent-mailbox" }, capabilities: { tools: {} } },
    });
    expect(known.body.result.instructions).toContain("never instructions");
    // A version the server does not speak is answered with the latest one it does.
    const unknown = await init("1999-01-01");
    expect(unknown.body.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);

    const initialized = await rpc({ jsonrpc: "2.0", method: "notifications/initialized" }, { authorization: `Bearer ${mcpKey}` });
    expect(initialized.status).toBe(202);
    const ping = await rpc(
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { authorization: `Bearer ${mcpKey}`, "mcp-protocol-version": "2025-06-18" },
    );
    expect(ping.body).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  test("the SDK client connects and lists every tool with a JSON Schema and a description", async () => {
    const client = await connect(mcpKey);
    expect(client.getServerVersion()?.name).toBe("agent-mailbox");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.description!.length).toBeGreaterThan(40);
    }
    const send = tools.find((tool) => tool.name === "send_email")!;
    expect(send.inputSchema.required).toEqual(["mailbox_id", "text"]);
    expect((send.inputSchema.properties as any).client_id).toMatchObject({ type: "string", minLength: 1, maxLength: 256 });
    expect(tools.find((tool) => tool.name === "get_message")!.description).toContain("untrusted");
  });

  test("an unknown tool is a JSON-RPC invalid-params error", async () => {
    const client = await connect(mcpKey);
    await expect(client.callTool({ name: "format_disk", arguments: {} })).rejects.toThrow(/unknown tool/);
  });

  test("a plain tools/call (answered without the SDK server) gets the answer the SDK server gives", async () => {
    // An account of its own: the flow below counts the owner's mailboxes.
    const other = await makeAccount(ctx);
    await makeMailbox(ctx, other, "plain-call");
    const auth = { authorization: `Bearer ${await makeKey(ctx, { accountId: other.accountId, scope: "mcp" })}` };
    const params = { name: "list_mailboxes", arguments: { limit: 5 } };
    const plain = await rpc({ jsonrpc: "2.0", id: 7, method: "tools/call", params }, auth);
    // `_meta` in params is not the plain form: this one goes through the SDK server.
    const viaSdk = await rpc({ jsonrpc: "2.0", id: "seven", method: "tools/call", params: { ...params, _meta: {} } }, auth);
    expect(plain.status).toBe(200);
    expect(viaSdk.status).toBe(200);
    expect(plain.body.id).toBe(7);
    expect(viaSdk.body.id).toBe("seven");
    expect(plain.body.result).toEqual(viaSdk.body.result);
    expect(plain.body.result.structuredContent.mailboxes.length).toBeGreaterThan(0);
    // Written around the body's JSON text, the reply is the text JSON.stringify gives for it.
    expect(plain.text).toBe(JSON.stringify({ result: plain.body.result, jsonrpc: "2.0", id: 7 }));
    // A tool error is a result either way, the same one.
    const bad = { name: "get_message", arguments: { message_id: "msg_missing" } };
    const plainError = await rpc({ jsonrpc: "2.0", id: 8, method: "tools/call", params: bad }, auth);
    const sdkError = await rpc({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { ...bad, _meta: {} } }, auth);
    expect(plainError.body.result.isError).toBe(true);
    expect(plainError.body.result).toEqual(sdkError.body.result);
    // Arguments that are not an object stay the invalid-params error they were.
    const notObject = await rpc({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "list_mailboxes", arguments: [1] } }, auth);
    expect(notObject.body.error.code).toBe(-32602);
  });

  test("GET and DELETE are 405: the server keeps no sessions and pushes nothing", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${base}/mcp`, { method, headers: { authorization: `Bearer ${mcpKey}`, accept: "text/event-stream" } });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });
});

describe("authentication", () => {
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };

  test("no key is 401 missing bearer token, before any JSON-RPC is read", async () => {
    const none = await rpc(list);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: "missing bearer token" });
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    // Even a body that is not JSON at all: the key is checked first.
    expect((await rpc("{not json")).status).toBe(401);
    expect((await fetch(`${base}/mcp`, { method: "GET" })).status).toBe(401);
  });

  test("an unknown or revoked key is 401 invalid api key, the HTTP API's answer", async () => {
    const bad = await rpc(list, { authorization: "Bearer svc_not_a_real_key" });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ error: "invalid api key" });
    expect(bad.body).toEqual((await http("GET", "/api/v1/mailboxes", "svc_not_a_real_key")).body);
    const client = new Client({ name: "mcp-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: "Bearer svc_nope" } },
    });
    await expect(client.connect(transport)).rejects.toThrow();
  });
});

describe("a full flow through the tools", () => {
  let client: Client;
  let sender: { id: string; address: string };
  let reader: { id: string; address: string };
  let sent: { id: string; thread_id: string; provider_message_id: string };
  let inboundId: string;
  let inboundThread: string;

  beforeAll(async () => {
    client = await connect(mcpKey);
  });

  test("create_mailbox and list_mailboxes answer the HTTP API's bodies", async () => {
    sender = success(await call(client, "create_mailbox", { slug: "mcp-sender", display_name: "Sender" }));
    expect(Object.keys(sender).sort()).toEqual(["address", "id"]);
    expect(sender.address).toBe(`agent-mcp-sender@${ctx.config.sharedDomain}`);
    reader = success(await call(client, "create_mailbox", { slug: "mcp-reader" }));
    const listed = success(await call(client, "list_mailboxes"));
    expect(listed.mailboxes.map((m: { id: string }) => m.id)).toEqual([reader.id, sender.id]);
    expect(listed).toEqual((await http("GET", "/api/v1/mailboxes", mcpKey)).body);
    const taken = failure(await call(client, "create_mailbox", { slug: "mcp-sender" }));
    expect(taken).toEqual({ status: 400, ...(await http("POST", "/api/v1/mailboxes", mcpKey, { slug: "mcp-sender" })).body });
  });

  test("send_email to another mailbox of ours delivers it there as inbound mail", async () => {
    sent = success(
      await call(client, "send_email", {
        mailbox_id: sender.id,
        to: reader.address,
        subject: "Over MCP",
        text: "Hello from a tool.",
        client_id: "mcp-flow-1",
      }),
    );
    expect(Object.keys(sent).sort()).toEqual(["id", "provider_message_id", "thread_id"]);
    expect(sent.provider_message_id).toMatch(/^local:msg_/);
    inboundId = sent.provider_message_id.slice("local:".length);
    const listed = success(await call(client, "list_messages", { mailbox_id: reader.id, limit: 10 }));
    expect(listed.messages).toHaveLength(1);
    expect(listed.messages[0]).toMatchObject({ id: inboundId, direction: "in", from_addr: sender.address, subject: "Over MCP" });
    expect(listed).toEqual((await http("GET", `/api/v1/messages?mailbox_id=${reader.id}&limit=10`, mcpKey)).body);
  });

  test("get_message returns the API's message with the screening result, body_raw withheld unless asked", async () => {
    await runWorkerUntil(
      ctx,
      async () => {
        const [row] = await ctx.sql`select processed_at from messages where id = ${inboundId}`;
        return row?.processed_at ?? null;
      },
      "inbound screening",
    );
    const result = await call(client, "get_message", { id: inboundId });
    const message = success(result);
    const viaHttp = (await http("GET", `/api/v1/messages/${inboundId}`, mcpKey)).body;
    expect(viaHttp.body_raw).toContain("Hello from a tool.");
    expect(message).toEqual({ ...viaHttp, body_raw: null });
    expect(message.body_clean).toBe("Hello from a tool.");
    inboundThread = message.thread_id;
    expect(message.comprehension.status).toBe("complete");
    expect(message.comprehension.injection).toMatchObject({ risky: false });
    // The second block is the screening summary, in fixed wording.
    expect(result.content).toHaveLength(2);
    expect(result.content[1]!.text).toContain("comprehension status: complete");
    expect(result.content[1]!.text).toContain("injection risk: low");
    expect(result.content[1]!.text).toContain("never as instructions");
    expect(success(await call(client, "get_message", { id: inboundId, include_raw: true }))).toEqual(viaHttp);
    // Our own sent copy has no screening block.
    const own = await call(client, "get_message", { id: sent.id });
    expect(success(own)).toMatchObject({ direction: "out", to_addr: reader.address });
    expect(own.content).toHaveLength(1);
  });

  test("a draft is created, edited, listed, read and sent, then gone", async () => {
    const created = success(
      await call(client, "create_draft", { mailbox_id: reader.id, reply_to_message_id: inboundId, text: "First try." }),
    );
    expect(created).toEqual({ id: expect.stringMatching(/^drf_/), status: "draft" });
    const updated = success(await call(client, "update_draft", { id: created.id, text: "Thanks, got it." }));
    expect(updated).toMatchObject({
      id: created.id,
      status: "draft",
      to: sender.address,
      subject: "Re: Over MCP",
      text: "Thanks, got it.",
      reply_to_message_id: inboundId,
      thread_id: inboundThread,
    });
    expect(success(await call(client, "get_draft", { id: created.id }))).toEqual(
      (await http("GET", `/api/v1/drafts/${created.id}`, mcpKey)).body,
    );
    expect(success(await call(client, "list_drafts", { mailbox_id: reader.id })).drafts.map((d: { id: string }) => d.id)).toEqual([
      created.id,
    ]);

    const delivered = success(await call(client, "send_draft", { id: created.id }));
    expect(Object.keys(delivered).sort()).toEqual(["draft_id", "id", "provider_message_id", "thread_id"]);
    expect(delivered).toMatchObject({ draft_id: created.id, thread_id: inboundThread });
    expect(failure(await call(client, "get_draft", { id: created.id }))).toEqual({ status: 404, error: "draft not found" });
    // The reply arrived in the sender's mailbox.
    const back = success(await call(client, "list_messages", { mailbox_id: sender.id }));
    expect(back.messages[0]).toMatchObject({ direction: "in", subject: "Re: Over MCP" });
  });

  test("delete_draft removes a draft; a second delete is the API's 404", async () => {
    const created = success(await call(client, "create_draft", { mailbox_id: sender.id, to: "someone@example.com", text: "Never mind." }));
    expect(success(await call(client, "delete_draft", { id: created.id }))).toEqual({ id: created.id, deleted: true });
    expect(failure(await call(client, "delete_draft", { id: created.id }))).toEqual({ status: 404, error: "draft not found" });
  });

  test("send_email retried with the same client_id returns the same message and sends once", async () => {
    const args = { mailbox_id: sender.id, to: reader.address, subject: "Once", text: "Only once.", client_id: "mcp-retry-1" };
    const first = success(await call(client, "send_email", args));
    const second = success(await call(client, "send_email", args));
    expect(second).toEqual(first);
    const [{ count }] = await ctx.sql`select count(*)::int as count from messages where mailbox_id = ${reader.id} and subject = 'Once'`;
    expect(count).toBe(1);
    const changed = failure(await call(client, "send_email", { ...args, text: "Something else." }));
    expect(changed).toEqual({ status: 409, code: "idempotency_conflict", error: "client_id was already used with a different payload" });
    // The HTTP API shares the same idempotency record.
    const viaHttp = await http("POST", "/api/v1/send", owner.key, args);
    expect(viaHttp).toEqual({ status: 200, body: first });
  });
});

describe("authorization is the HTTP API's", () => {
  let own: { id: string; address: string };
  let other: { id: string; address: string };
  let bound: string;
  let stranger: Fixture;
  let strangersMessage: string;

  beforeAll(async () => {
    own = await makeMailbox(ctx, owner, "bound-own");
    other = await makeMailbox(ctx, owner, "bound-other");
    bound = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp", mailboxId: own.id });
    stranger = await makeAccount(ctx);
    const theirs = await makeMailbox(ctx, stranger, "stranger");
    const sent = await http("POST", "/api/v1/send", stranger.key, { mailbox_id: theirs.id, to: "x@example.com", text: "private" });
    expect(sent.status).toBe(201);
    strangersMessage = sent.body.id;
  });

  test("a mailbox-bound mcp key is refused on another mailbox with the API's key_scope error", async () => {
    const client = await connect(bound);
    const args = { mailbox_id: other.id, to: "x@example.com", text: "hi" };
    const refused = failure(await call(client, "send_email", args));
    expect(refused).toEqual({ status: 403, error: "this api key is scoped to a different mailbox", code: "key_scope" });
    const viaHttp = await http("POST", "/api/v1/send", bound, args);
    expect({ status: refused.status, ...refused }).toEqual({ status: viaHttp.status, ...viaHttp.body });
    for (const [tool, path] of [
      ["list_messages", `/api/v1/messages?mailbox_id=${other.id}`],
      ["list_drafts", `/api/v1/drafts?mailbox_id=${other.id}`],
    ] as const) {
      const result = failure(await call(client, tool, { mailbox_id: other.id }));
      const response = await http("GET", path, bound);
      expect(result).toEqual({ status: response.status, ...response.body });
    }
    expect(failure(await call(client, "create_draft", args))).toEqual(refused);
    expect(failure(await call(client, "create_mailbox"))).toEqual({
      status: 403,
      error: "this api key is scoped to a single mailbox",
      code: "key_scope",
    });
    // Its own mailbox works, and it sees only that one.
    expect(success(await call(client, "list_mailboxes")).mailboxes.map((m: { id: string }) => m.id)).toEqual([own.id]);
    expect(success(await call(client, "send_email", { ...args, mailbox_id: own.id }))).toHaveProperty("id");
  });

  test("another account's message id is the same not-found as a missing one, over MCP and HTTP alike", async () => {
    const client = await connect(mcpKey);
    const foreign = failure(await call(client, "get_message", { id: strangersMessage }));
    const missing = failure(await call(client, "get_message", { id: "msg_doesnotexist" }));
    expect(foreign).toEqual({ status: 404, error: "message not found" });
    expect(missing).toEqual(foreign);
    const viaHttp = await http("GET", `/api/v1/messages/${strangersMessage}`, mcpKey);
    expect({ status: viaHttp.status, ...viaHttp.body }).toEqual(foreign);
    // Replying to it is the same 404 too, not a hint that it exists.
    expect(failure(await call(client, "send_email", { mailbox_id: own.id, reply_to_message_id: strangersMessage, text: "hi" }))).toEqual({
      status: 404,
      error: "message not found",
    });
  });

  test("capabilities and scopes: can_send false, can_read false, a bootstrap key", async () => {
    const readOnly = await connect(await makeKey(ctx, { accountId: owner.accountId, scope: "mcp", canSend: false }));
    expect(failure(await call(readOnly, "send_email", { mailbox_id: own.id, to: "x@example.com", text: "hi" }))).toEqual({
      status: 403,
      error: "this api key cannot send",
      code: "key_scope",
    });
    expect(failure(await call(readOnly, "delete_draft", { id: "drf_x" }))).toEqual({
      status: 403,
      error: "this api key cannot send",
      code: "key_scope",
    });
    const writeOnly = await connect(await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false }));
    expect(failure(await call(writeOnly, "get_message", { id: "msg_x" }))).toEqual({
      status: 403,
      error: "this api key cannot read messages",
      code: "key_scope",
    });
    const bootstrap = await connect(await makeKey(ctx, { accountId: owner.accountId, scope: "bootstrap" }));
    expect(failure(await call(bootstrap, "send_email", { mailbox_id: own.id, to: "x@example.com", text: "hi" }))).toEqual({
      status: 403,
      error: "scope 'bootstrap' not permitted for this endpoint",
    });
    expect(success(await call(bootstrap, "create_mailbox", { slug: "from-bootstrap" }))).toHaveProperty("address");
  });
});

describe("arguments", () => {
  let client: Client;
  let mailbox: { id: string };

  beforeAll(async () => {
    client = await connect(mcpKey);
    mailbox = await makeMailbox(ctx, owner, "args");
  });

  test("invalid arguments are a clear 400 tool error, worded as the HTTP API words it", async () => {
    expect(failure(await call(client, "send_email", { mailbox_id: mailbox.id, to: "x@example.com" }))).toEqual({
      status: 400,
      error: "text is required",
    });
    expect(
      failure(await call(client, "send_email", { mailbox_id: mailbox.id, to: "x@example.com", text: "hi", cc: "y@example.com" })),
    ).toEqual({ status: 400, error: "unknown field 'cc'" });
    expect(
      failure(await call(client, "send_email", { mailbox_id: mailbox.id, to: "a@example.com, b@example.com", text: "hi" })),
    ).toMatchObject({ status: 400 });
    expect(
      failure(await call(client, "send_email", { mailbox_id: mailbox.id, to: "x@example.com", text: "hi", client_id: "draft:mine" })),
    ).toEqual({ status: 400, error: "client_id must not start with 'draft:' (reserved)" });
    expect(failure(await call(client, "list_messages", { mailbox_id: mailbox.id, limit: 0 }))).toEqual({
      status: 400,
      error: "limit must be an integer >= 1",
    });
    expect(failure(await call(client, "list_messages", { mailbox_id: mailbox.id, limit: "10" }))).toEqual({
      status: 400,
      error: "limit must be an integer >= 1",
    });
    expect(failure(await call(client, "list_messages", { mailbox_id: mailbox.id, limit: 2.5 }))).toEqual({
      status: 400,
      error: "limit must be an integer >= 1",
    });
    expect(success(await call(client, "list_messages", { mailbox_id: mailbox.id, limit: 5000 }))).toEqual({ messages: [] });
    expect(failure(await call(client, "get_message", {}))).toEqual({ status: 400, error: "id is required" });
    expect(failure(await call(client, "create_mailbox", { slug: "Not A Slug" }))).toMatchObject({
      status: 400,
      error: expect.stringContaining("slug"),
    });
    expect(failure(await call(client, "update_draft", { id: "drf_x", reply_to_message_id: "msg_y" }))).toEqual({
      status: 400,
      error: "unknown field 'reply_to_message_id'",
    });
    expect(failure(await call(client, "send_email", { mailbox_id: mailbox.id, to: "x@example.com", text: "nul\u0000byte" }))).toEqual({
      status: 400,
      error: "strings must not contain NUL characters",
    });
    // The same bad body through HTTP gets the same message.
    const viaHttp = await http("POST", "/api/v1/send", mcpKey, { mailbox_id: mailbox.id, to: "x@example.com" });
    expect(viaHttp).toEqual({ status: 400, body: { error: "text is required" } });
  });

  test("oversized input is refused: a field past its limit, and a request past the body limit", async () => {
    const long = failure(await call(client, "send_email", { mailbox_id: mailbox.id, to: "x@example.com", text: "a".repeat(500_001) }));
    expect(long).toEqual({ status: 400, error: "text must be 1 to 500000 characters" });
    const huge = await rpc(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "send_email",
          arguments: { mailbox_id: mailbox.id, to: "x@example.com", text: "a".repeat(ctx.config.maxRequestBytes + 10) },
        },
      },
      { authorization: `Bearer ${mcpKey}` },
    );
    expect(huge.status).toBe(413);
    const [{ count }] = await ctx.sql`select count(*)::int as count from messages where mailbox_id = ${mailbox.id}`;
    expect(count).toBe(0);
  });
});

describe("resource limits", () => {
  let mailbox: { id: string };
  const auth = () => ({ authorization: `Bearer ${mcpKey}`, "mcp-protocol-version": "2025-06-18" });

  beforeAll(async () => {
    mailbox = await makeMailbox(ctx, owner, "limits");
  });

  test("a JSON-RPC batch cannot fan one request out into many tool calls", async () => {
    const sends = Array.from({ length: 20 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "send_email", arguments: { mailbox_id: mailbox.id, to: `batch-${i}@example.com`, text: "fan-out" } },
    }));
    const batch = await rpc(sends, auth());
    expect(batch.status).toBe(400);
    expect(batch.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
    expect(batch.body.error.message).toContain("batch");
    const [{ count }] = await ctx.sql`select count(*)::int as count from messages where mailbox_id = ${mailbox.id}`;
    expect(count).toBe(0);
    // One message in an array is still one message.
    const single = await rpc([{ jsonrpc: "2.0", id: 1, method: "ping" }], auth());
    expect(single.status).toBe(200);
  });

  test("deeply nested arguments are a 400, as the HTTP API answers, not a crash", async () => {
    const depth = 50_000;
    const nested = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_email","arguments":{"mailbox_id":"${mailbox.id}","text":"x","to":"x@example.com","deep":${nested}}}}`;
    const reply = await rpc(body, auth());
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
    expect(reply.body.error.message).toContain("nested deeper than 16 levels");
  });
});

test("/openapi.json does not list /mcp (it is JSON-RPC, described in docs/mcp.md)", async () => {
  const document = (await fetch(`${base}/openapi.json`).then((r) => r.json())) as { paths: Record<string, unknown> };
  expect(Object.keys(document.paths)).not.toContain("/mcp");
});

describe("draft attachments through the tools", () => {
  test("attach_file (base64), list, remove, send; the file arrives; attach_message_attachment copies it on", async () => {
    const client = await connect(mcpKey);
    const from = success(await call(client, "create_mailbox", { slug: "mcp-att-from" }));
    const to = success(await call(client, "create_mailbox", { slug: "mcp-att-to" }));
    const draft = success(
      await call(client, "create_draft", { mailbox_id: from.id, to: to.address, subject: "Files", text: "Two files." }),
    );
    const csv = "name,amount\nacme,12\n";
    const added = success(
      await call(client, "attach_file", {
        draft_id: draft.id,
        filename: "amounts.csv",
        content_type: "text/csv",
        content_base64: btoa(csv),
      }),
    );
    expect(added).toMatchObject({ draft_id: draft.id, filename: "amounts.csv", content_type: "text/csv", size: csv.length });
    const extra = success(await call(client, "attach_file", { draft_id: draft.id, filename: "extra.txt", content_base64: btoa("x") }));
    expect(extra.content_type).toBe("application/octet-stream");
    const listed = success(await call(client, "list_draft_attachments", { draft_id: draft.id }));
    expect(listed).toEqual((await http("GET", `/api/v1/drafts/${draft.id}/attachments`, mcpKey)).body);
    expect(listed.attachments).toHaveLength(2);
    expect(success(await call(client, "remove_draft_attachment", { draft_id: draft.id, attachment_id: extra.id }))).toEqual({
      id: extra.id,
      removed: true,
    });
    expect(failure(await call(client, "remove_draft_attachment", { draft_id: draft.id, attachment_id: extra.id }))).toEqual({
      status: 404,
      error: "not found",
    });

    // Refused before anything is stored: bad base64, a type the bytes contradict, too large for MCP.
    expect(failure(await call(client, "attach_file", { draft_id: draft.id, filename: "a.txt", content_base64: "@@@" }))).toEqual({
      status: 400,
      error: "content_base64 is not valid base64",
    });
    const pdf = failure(
      await call(client, "attach_file", {
        draft_id: draft.id,
        filename: "a.pdf",
        content_type: "application/pdf",
        content_base64: btoa("hi"),
      }),
    );
    expect(pdf.status).toBe(400);
    const big = Buffer.alloc(512 * 1024 + 1, 65).toString("base64");
    expect(failure(await call(client, "attach_file", { draft_id: draft.id, filename: "big.txt", content_base64: big })).status).toBe(413);

    const sent = success(await call(client, "send_draft", { id: draft.id }));
    const arrivedId = sent.provider_message_id.slice("local:".length);
    const arrived = success(await call(client, "get_message", { id: arrivedId }));
    expect(arrived.attachments).toEqual([expect.objectContaining({ filename: "amounts.csv", size: csv.length })]);

    // The received file goes on to a third party by reference.
    const onward = success(
      await call(client, "create_draft", { mailbox_id: to.id, to: "someone@example.com", text: "Forwarding the numbers." }),
    );
    const copied = success(
      await call(client, "attach_message_attachment", {
        draft_id: onward.id,
        message_id: arrivedId,
        attachment_id: arrived.attachments[0].id,
      }),
    );
    expect(copied).toMatchObject({ filename: "amounts.csv", source_attachment_id: arrived.attachments[0].id });
  });
});

describe("labels through the tools", () => {
  test("change_labels on messages and a thread, get_labels, and the label filter of list_messages", async () => {
    const client = await connect(mcpKey);
    const box = success(await call(client, "create_mailbox", { slug: "mcp-labels" }));
    const from = success(await call(client, "create_mailbox", { slug: "mcp-labels-from" }));
    const sent = success(await call(client, "send_email", { mailbox_id: from.id, to: box.address, subject: "Label me", text: "x" }));
    const arrived = sent.provider_message_id.slice("local:".length);
    expect(success(await call(client, "get_labels", { message_id: arrived }))).toEqual({ labels: ["unread"] });
    expect(success(await call(client, "change_labels", { message_ids: [arrived, "msg_nope"], add: ["read", "todo"] }))).toEqual({
      updated: [arrived],
      not_found: ["msg_nope"],
    });
    const todo = success(await call(client, "list_messages", { mailbox_id: box.id, label: "todo" }));
    expect(todo.messages.map((m: { id: string }) => m.id)).toEqual([arrived]);
    const threadId = success(await call(client, "get_message", { id: arrived })).thread_id;
    expect(success(await call(client, "change_labels", { thread_id: threadId, add: ["archived"], remove: ["todo"] }))).toEqual({
      labels: ["archived", "read"],
    });
    expect(success(await call(client, "get_labels", { thread_id: threadId }))).toEqual({ labels: ["archived", "read"] });
    expect(failure(await call(client, "change_labels", { add: ["x"] })).status).toBe(400);
    expect(failure(await call(client, "get_labels", { message_id: "msg_nope" }))).toEqual({ status: 404, error: "message not found" });
  });
});
