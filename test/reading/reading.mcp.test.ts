// The reading tools over MCP (real HTTP on loopback, the official SDK client): list_threads,
// get_thread, search_messages and list_messages' cursor answer what the HTTP API answers, with
// the same errors and the same isolation.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

setDefaultTimeout(30_000);

let ctx: TestContext;
let server: HttpServer;
let base: string;
let owner: Fixture;
let stranger: Fixture;
let inbox: Mailbox;
let mcpKey: string;
let boundKey: string;
const clients: Client[] = [];
let threadId: string;

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "reading-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  clients.push(client);
  return client;
}
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as Result;
async function http(path: string, key: string) {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `http://127.0.0.1:${server.port}`;
  owner = await makeAccount(ctx);
  stranger = await makeAccount(ctx);
  mcpKey = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp" });
  inbox = (await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${(await makeMailbox(ctx, owner, "mcp-reader")).id}`)[0]!;
  const other = await makeMailbox(ctx, owner, "mcp-other");
  boundKey = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp", mailboxId: other.id });
  for (const [i, subject] of ["Quote for 40 chairs", "Re: Quote for 40 chairs", "Delivery window"].entries()) {
    const raw = [
      "From: buyer@furniture.example",
      `To: ${inbox.address}`,
      `Subject: ${subject}`,
      `Message-ID: <m${i}@furniture.example>`,
      ...(i === 1 ? ["In-Reply-To: <m0@furniture.example>"] : []),
      "",
      i === 1 ? "Yes please.\n\nOn Mon, buyer wrote:\n> quote?" : `${subject} body`,
      "",
    ].join("\r\n");
    const [id] = await acceptInbound(ctx.svc, Buffer.from(raw), [inbox], {
      remoteIp: null,
      helo: null,
      mailFrom: "buyer@furniture.example",
    });
    // Screening writes the search document (after the 250, sql/0020).
    await screenMessage(ctx.svc, id!);
  }
  [{ thread_id: threadId }] = (await ctx.sql`select thread_id from messages where subject = 'Quote for 40 chairs'`) as any;
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await server.stop();
  await ctx.close();
});

describe("reading tools", () => {
  test("list_threads, get_thread and search_messages return the HTTP API's bodies", async () => {
    const client = await connect(mcpKey);
    const threads = await call(client, "list_threads", { mailbox_id: inbox.id });
    expect(threads.isError).toBeFalsy();
    expect(threads.structuredContent).toEqual((await http(`/api/v1/threads?mailbox_id=${inbox.id}`, mcpKey)).body);
    expect(threads.structuredContent.threads.map((t: any) => t.message_count)).toEqual([1, 2]);

    const thread = await call(client, "get_thread", { id: threadId });
    expect(thread.structuredContent).toEqual((await http(`/api/v1/threads/${threadId}`, mcpKey)).body);
    expect(thread.structuredContent.messages[1].reply_text).toBe("Yes please.");

    const search = await call(client, "search_messages", { mailbox_id: inbox.id, q: "chairs", limit: 1 });
    expect(search.structuredContent).toEqual((await http(`/api/v1/search?mailbox_id=${inbox.id}&q=chairs&limit=1`, mcpKey)).body);
    expect(search.structuredContent.next_cursor).toBeString();
  });

  test("list_messages gives the cursor in a note, its body unchanged, and takes it back", async () => {
    const client = await connect(mcpKey);
    const first = await call(client, "list_messages", { mailbox_id: inbox.id, limit: 2 });
    expect(Object.keys(first.structuredContent)).toEqual(["messages"]);
    const http1 = await http(`/api/v1/messages?mailbox_id=${inbox.id}&limit=2`, mcpKey);
    const cursor = http1.headers.get("x-next-cursor")!;
    expect(first.content[1]!.text).toContain(cursor);
    const second = await call(client, "list_messages", { mailbox_id: inbox.id, limit: 2, cursor });
    expect(second.structuredContent.messages).toHaveLength(1);
    expect(second.content).toHaveLength(1);
  });

  test("errors: a bad cursor and an unknown thread, as the HTTP API words them", async () => {
    const client = await connect(mcpKey);
    const bad = await call(client, "list_threads", { mailbox_id: inbox.id, cursor: "nope!" });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toEqual({ status: 400, error: "cursor is not a valid cursor for this listing" });
    const missing = await call(client, "get_thread", { id: "thr_missing" });
    expect(missing.structuredContent).toEqual({ status: 404, error: "thread not found" });
  });

  test("isolation: another account's thread is the same 404; a bound key is refused another mailbox", async () => {
    const theirs = await call(await connect(stranger.key), "get_thread", { id: threadId });
    expect(theirs.structuredContent).toEqual({ status: 404, error: "thread not found" });
    const strangerSearch = await call(await connect(stranger.key), "search_messages", { mailbox_id: inbox.id, q: "chairs" });
    expect(strangerSearch.structuredContent.results).toEqual([]);
    const bound = await connect(boundKey);
    expect((await call(bound, "search_messages", { mailbox_id: inbox.id, q: "chairs" })).structuredContent).toMatchObject({
      status: 403,
      code: "key_scope",
    });
    expect((await call(bound, "get_thread", { id: threadId })).structuredContent).toEqual({ status: 404, error: "thread not found" });
  });
});
