#!/usr/bin/env bun
// The stdio MCP server, for clients that launch a local command (Claude Desktop, Cursor, VS Code,
// the MCP Inspector): `npm run mcp`, or the package's `agent-mailbox-mcp` bin. It holds no tools of
// its own: tools/list and tools/call are forwarded to a running service's /mcp over HTTP with the
// key, so the tools, their checks and their answers are exactly those of /mcp, and the key never
// gains anything by being used locally. Settings: AGENT_MAILBOX_URL (default
// http://localhost:3000) and AGENT_MAILBOX_KEY (an api or mcp key). stdout carries only the
// protocol; every word for a human goes to stderr.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ConfigError, loadStdioConfig, type StdioConfig } from "../config.ts";

const VERSION = "1.0.0";

/** A connected client of the service's /mcp; the connection is made again after it fails. */
function remote(config: StdioConfig) {
  let connecting: Promise<Client> | null = null;
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: "agent-mailbox-stdio", version: VERSION });
    const transport = new StreamableHTTPClientTransport(new URL(`${config.serviceUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${config.apiKey}` } },
    });
    await client.connect(transport);
    return client;
  };
  return {
    client(): Promise<Client> {
      connecting ??= connect().catch((error) => {
        connecting = null;
        throw error;
      });
      return connecting;
    },
    reset(): void {
      connecting = null;
    },
  };
}

/** The service did not answer (down, wrong URL, key refused): a tool result that says so, never a crash. */
function unreachable(config: StdioConfig, error: unknown): CallToolResult {
  const reason = error instanceof Error ? error.message : String(error);
  const body = {
    status: 503,
    error: `the agent-mailbox service at ${config.serviceUrl} did not answer: ${reason.slice(0, 300)}`,
    code: "service_unreachable",
  };
  return { isError: true, structuredContent: body, content: [{ type: "text", text: JSON.stringify(body) }] };
}

export async function runStdioServer(config: StdioConfig, log: (line: string) => void): Promise<Server> {
  const service = remote(config);
  // Connected before serving, so the service's instructions reach the client and a wrong URL or key
  // is reported at once, on stderr, where a human setting up a client looks.
  const first = await service.client();
  const server = new Server(
    { name: "agent-mailbox", version: VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: first.getInstructions() },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const client = await service.client();
    return client.listTools(request.params);
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    let client: Client;
    try {
      client = await service.client();
    } catch (error) {
      return unreachable(config, error);
    }
    try {
      return (await client.callTool(request.params)) as CallToolResult;
    } catch (error) {
      // A protocol error from the service (an unknown tool) is the client's to see as it is.
      if (error instanceof McpError) throw error;
      service.reset();
      log(`agent-mailbox-mcp: ${request.params.name} failed to reach the service: ${String(error)}`);
      return unreachable(config, error);
    }
  });
  await server.connect(new StdioServerTransport());
  log(`agent-mailbox-mcp: serving the tools of ${config.serviceUrl}/mcp on stdio`);
  return server;
}

if (import.meta.main) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let config: StdioConfig;
  try {
    config = loadStdioConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log(`agent-mailbox-mcp: ${error.message}`);
    process.exit(2);
  }
  runStdioServer(config, log).catch((error) => {
    log(`agent-mailbox-mcp: cannot reach ${config.serviceUrl}/mcp: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
