// correct_verdict over MCP (real HTTP on loopback, the official SDK client): the same outcome as
// POST /api/v1/messages/{id}/feedback, the same 404 for what the key may not see, its annotations,
// and get_message's screening note naming the sender risk.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { toRaw, unwantedMessage } from "../fixtures/feedback/stream.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxRow } from "../support/mailbox-row.ts";

setDefaultTimeout(30_000);

let ctx: TestContext;
let server: HttpServer;
let base: string;
let owner: Fixture;
let mcpKey: string;
let boundKey: string;
let strangerKey: string;
let messageId: string;
const clients: Client[] = [];

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "feedback-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  clients.push(client);
  return client;
}
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as Result;

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `http://127.0.0.1:${server.port}`;
  owner = await makeAccount(ctx);
  const stranger = await makeAccount(ctx);
  strangerKey = await makeKey(ctx, { accountId: stranger.accountId, scope: "mcp" });
  mcpKey = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp" });
  const inbox = await makeMailbox(ctx, owner, "mcp-feedback");
  const other = await makeMailbox(ctx, owner, "mcp-feedback-other");
  boundKey = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp", mailboxId: other.id });
  const [id] = await acceptInbound(ctx.svc, toRaw(unwantedMessage(9), inbox.address), [(await mailboxRow(ctx, inbox.id))!], {
    remoteIp: null,
    helo: null,
    mailFrom: null,
  });
  await screenMessage(ctx.svc, id!);
  messageId = id!;
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await server.stop();
  await ctx.close();
});

test("listed with annotations: not read-only, not destructive, idempotent, closed world", async () => {
  const { tools } = await (await connect(mcpKey)).listTools();
  const tool = tools.find((t) => t.name === "correct_verdict")!;
  expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  expect(tool.description).toContain("unchanged");
});

test("recorded, then unchanged, then replaced; the note says what happened; same body as the HTTP answer", async () => {
  const client = await connect(mcpKey);
  const first = await call(client, "correct_verdict", { id: messageId, verdict: "spam" });
  expect(first.isError).toBeFalsy();
  expect(first.structuredContent).toMatchObject({ feedback: { verdict: "spam", trained: "spam" }, replaced: null });
  expect(first.content.map((c) => c.text).join("\n")).toContain("Correction recorded");
  const again = await call(client, "correct_verdict", { id: messageId, verdict: "spam" });
  expect(again.content.map((c) => c.text).join("\n")).toContain("Correction unchanged");
  const http = await ctx.request("POST", `/api/v1/messages/${messageId}/feedback`, { key: mcpKey, body: { verdict: "spam" } });
  expect(http.body).toEqual(again.structuredContent);
  const flipped = await call(client, "correct_verdict", { id: messageId, verdict: "not_spam" });
  expect(flipped.structuredContent).toMatchObject({ feedback: { verdict: "not_spam" }, replaced: "spam" });
  const [row] = await ctx.sql`select source from message_feedback where undone_at is null and axis = 'spam'`;
  expect(row).toEqual({ source: "mcp" });
});

test("another account's key and a key bound to another mailbox get get_message's 404", async () => {
  for (const key of [strangerKey, boundKey]) {
    const client = await connect(key);
    const read = await call(client, "get_message", { id: messageId });
    const correct = await call(client, "correct_verdict", { id: messageId, verdict: "spam" });
    expect(correct.isError).toBe(true);
    expect(correct.structuredContent).toEqual(read.structuredContent);
    expect(correct.structuredContent).toEqual({ status: 404, error: "message not found" });
  }
});

test("get_message's screening note names the sender risk", async () => {
  const read = await call(await connect(mcpKey), "get_message", { id: messageId });
  expect(read.content.map((c) => c.text).join("\n")).toMatch(/sender risk: (low|ELEVATED|HIGH)/);
  expect(read.structuredContent.comprehension.sender_risk.level).toMatch(/^(low|elevated|high)$/);
});
