// The stdio MCP server (src/mcp/stdio.ts) as a client launches it: a real child process speaking
// JSON-RPC on its stdin and stdout, driven by the MCP SDK's own stdio client, talking to a running
// service over loopback HTTP. It must offer exactly /mcp's tools, and every tool must answer
// through it as it answers at /mcp.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { tools } from "../../src/mcp/server.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mime, receive } from "../support/mail-fixtures.ts";

setDefaultTimeout(60_000);

let ctx: TestContext;
let server: HttpServer;
let base: string;
let owner: Fixture;
let key: string;
let stdio: Client;
let http: Client;
let stderr = "";

function launch(env: Record<string, string>): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["src/mcp/stdio.ts"],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk) => (stderr += String(chunk)));
  return transport;
}

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local", HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `http://127.0.0.1:${server.port}`;
  owner = await makeAccount(ctx, { plan: "paid" });
  key = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp" });
  stdio = new Client({ name: "stdio-test", version: "1.0.0" });
  await stdio.connect(launch({ AGENT_MAILBOX_URL: base, AGENT_MAILBOX_KEY: key }));
  http = new Client({ name: "http-test", version: "1.0.0" });
  await http.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
});

afterAll(async () => {
  await stdio?.close();
  await http?.close();
  await server.stop();
  await ctx.close();
});

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Result;

describe("stdio MCP server", () => {
  test("offers exactly the tools of /mcp, each with all four annotations and the pending_approval meaning where it applies", async () => {
    const [local, remote] = await Promise.all([stdio.listTools(), http.listTools()]);
    expect(local.tools).toEqual(remote.tools);
    expect(local.tools.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort());
    for (const tool of local.tools) {
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
        expect(typeof tool.annotations?.[hint]).toBe("boolean");
      }
      expect(tool.description).toContain("403 key_scope");
    }
    for (const name of ["send_email", "send_draft", "forward_message"]) {
      expect(local.tools.find((t) => t.name === name)!.description).toContain("held for a human: do not resend");
    }
    expect(stdio.getInstructions()).toBe(http.getInstructions());
  });

  test("every tool answers through stdio as it answers at /mcp", async () => {
    const mailbox = await makeMailbox(ctx, owner, "stdio");
    const messageId = await receive(
      ctx,
      mailbox.id,
      mime({
        from: "Carol <carol@example.org>",
        to: mailbox.address,
        subject: "Invoice 42",
        text: "Please find the invoice attached.",
        attachment: { name: "invoice.txt", type: "text/plain", content: "Invoice 42: 10 EUR" },
      }),
    );
    const message = (await call(stdio, "get_message", { id: messageId })).structuredContent;
    const attachmentId = message.attachments[0].id as string;
    const draft = (await call(stdio, "create_draft", { mailbox_id: mailbox.id, to: "dave@example.org", subject: "Hi", text: "Draft" }))
      .structuredContent;
    const draftToSchedule = (await call(http, "create_draft", { mailbox_id: mailbox.id, to: "hal@example.org", text: "Later" }))
      .structuredContent;
    const draftToDelete = (await call(stdio, "create_draft", { mailbox_id: mailbox.id, to: "erin@example.org", text: "Bye" }))
      .structuredContent;

    const toRemove = (await call(http, "attach_file", { draft_id: draft.id, filename: "old.txt", content_base64: btoa("old") }))
      .structuredContent;

    // [tool, arguments, compare with /mcp] — reads are compared whole; writes run once, through stdio.
    const plan: [string, Record<string, unknown>, boolean][] = [
      ["list_mailboxes", {}, true],
      ["create_mailbox", { slug: "stdio-made" }, false],
      ["list_messages", { mailbox_id: mailbox.id }, true],
      ["get_message", { id: messageId }, true],
      ["wait_for_message", { mailbox_id: mailbox.id, subject_contains: "nothing-like-this", timeout_s: 0 }, false],
      ["get_message_events", { id: messageId }, true],
      ["get_attachment", { message_id: messageId, attachment_id: attachmentId }, true],
      ["send_email", { mailbox_id: mailbox.id, to: "frank@example.org", text: "Sent through stdio", client_id: "stdio-1" }, false],
      ["forward_message", { message_id: messageId, to: "hugo@example.org", client_id: "stdio-fwd" }, false],
      ["rsvp", { message_id: messageId, response: "accepted" }, true],
      ["create_draft", { mailbox_id: mailbox.id, to: "gina@example.org", text: "Another" }, false],
      ["list_drafts", { mailbox_id: mailbox.id }, true],
      ["get_draft", { id: draft.id }, true],
      ["update_draft", { id: draft.id, subject: "Hi again" }, false],
      ["attach_file", { draft_id: draft.id, filename: "notes.txt", content_type: "text/plain", content_base64: btoa("notes") }, false],
      ["attach_message_attachment", { draft_id: draft.id, message_id: messageId, attachment_id: attachmentId }, false],
      ["remove_draft_attachment", { draft_id: draft.id, attachment_id: toRemove.id }, false],
      ["list_draft_attachments", { draft_id: draft.id }, true],
      ["delete_draft", { id: draftToDelete.id }, false],
      ["schedule_draft", { id: draftToSchedule.id, send_at: new Date(Date.now() + 3_600_000).toISOString() }, false],
      ["unschedule_draft", { id: draftToSchedule.id }, false],
      ["send_draft", { id: draft.id }, false],
      ["list_threads", { mailbox_id: mailbox.id }, true],
      ["get_thread", { id: message.thread_id }, true],
      ["search_messages", { mailbox_id: mailbox.id, q: "invoice" }, true],
      ["correct_verdict", { id: messageId, verdict: "not_spam" }, false],
      ["get_labels", { message_id: messageId }, true],
      ["change_labels", { message_ids: [messageId], add: ["read"] }, false],
      ["list_events", { mailbox_id: mailbox.id }, true],
      ["open_consumer", { name: "stdio-consumer", mailbox_id: mailbox.id }, false],
      ["get_consumer", { name: "stdio-consumer" }, true],
      ["claim_events", { name: "stdio-consumer" }, false],
      ["ack_events", { name: "stdio-consumer", cursors: ["0"] }, false],
      ["list_domains", {}, true],
      ["create_domain", { name: "stdio.example.com" }, false],
      ["verify_domain", { id: "dom_missing" }, true],
    ];
    expect(plan.map(([name]) => name).sort()).toEqual(tools.map((t) => t.name).sort());

    for (const [name, args, compare] of plan) {
      const local = await call(stdio, name, args);
      if (name === "verify_domain") {
        expect(local.structuredContent).toEqual({ status: 404, error: "not found" });
      } else if (name === "rsvp") {
        // The message is no invitation: both transports give the API's 400.
        expect(local.structuredContent).toEqual({
          status: 400,
          error: "the message holds no calendar invitation (METHOD:REQUEST) to answer",
        });
      } else {
        expect({ name, isError: local.isError ?? false, body: local.structuredContent }).toMatchObject({ name, isError: false });
      }
      if (compare) expect(local).toEqual((await call(http, name, args)) as Result);
    }

    const attachment = (await call(stdio, "get_attachment", { message_id: messageId, attachment_id: attachmentId })).structuredContent;
    expect(Buffer.from(attachment.content_base64, "base64").toString()).toBe("Invoice 42: 10 EUR");
    const claimed = (await call(stdio, "claim_events", { name: "stdio-consumer" })).structuredContent;
    expect(claimed).toEqual({ events: [] });
  });

  test("a contract error crosses stdio unchanged", async () => {
    const local = await call(stdio, "get_draft", { id: "drf_nope" });
    expect(local).toEqual((await call(http, "get_draft", { id: "drf_nope" })) as Result);
    expect(local.structuredContent).toEqual({ status: 404, error: "draft not found" });
  });

  test("a refused key or a missing key is reported on stderr and the process exits", async () => {
    for (const [env, expected] of [
      [{ AGENT_MAILBOX_URL: base, AGENT_MAILBOX_KEY: "svc_not_a_key" }, /cannot reach .*\/mcp/],
      [{ AGENT_MAILBOX_URL: base }, /AGENT_MAILBOX_KEY must be set/],
    ] as const) {
      const child = Bun.spawn([process.execPath, "src/mcp/stdio.ts"], {
        env: { PATH: process.env.PATH ?? "", ...env },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const code = await child.exited;
      expect(code).not.toBe(0);
      expect(await new Response(child.stderr).text()).toMatch(expected);
      expect(await new Response(child.stdout).text()).toBe("");
    }
  });
});
