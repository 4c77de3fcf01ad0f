// Reads a POST /mcp body ourselves, before the SDK transport sees it, so that it gets the HTTP
// API's limits: the same byte limit, the same nesting limit (a deeply nested argument would
// otherwise overflow the stack in validation and end as a 500), and one JSON-RPC message per
// request (a batch would let one request fan out into many concurrent sends; protocol
// 2025-06-18 dropped batching anyway). The parsed message is handed on as `parsedBody`.

import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { MAX_JSON_DEPTH, nestingDepth, readBodyWithin } from "../request/body-limits.ts";

const MAX_BATCH_MESSAGES = 1;

type McpBody = { ok: true; message: unknown } | { ok: false; response: Response };

function rpcError(status: number, code: number, message: string): { ok: false; response: Response } {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  return { ok: false, response: new Response(body, { status, headers: { "content-type": "application/json" } }) };
}

export async function readMcpBody(request: Request, maxBytes: number): Promise<McpBody> {
  const text = await readBodyWithin(request, maxBytes);
  if (text === null) return rpcError(413, -32000, `Payload Too Large: Request body must not exceed ${maxBytes} bytes`);
  if (nestingDepth(text) > MAX_JSON_DEPTH)
    return rpcError(400, -32600, `Invalid Request: request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return rpcError(400, -32700, "Parse error: Invalid JSON");
  }
  if (Array.isArray(message) && message.length > MAX_BATCH_MESSAGES) {
    return rpcError(400, -32600, "Invalid Request: batches are not supported; send one JSON-RPC message per request");
  }
  return { ok: true, message };
}

// The requests this server answers, by method, with the SDK's own schema for each.
const REQUEST_SCHEMAS = new Map<string, { safeParse(value: unknown): { success: boolean } }>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
]);

/**
 * A request whose params do not fit its method (tools/call arguments that are not an object,
 * initialize without params) is the client's error, -32602 Invalid params. Left to the SDK, its
 * schema check throws inside the request handler, which it reports as -32603 Internal error with
 * the validator's dump as the message. Notifications (no id) get no answer either way.
 */
export function invalidParams(message: unknown): Response | null {
  if (!message || typeof message !== "object" || Array.isArray(message)) return null;
  const request = message as { method?: unknown; id?: unknown };
  if (!("id" in request) || typeof request.method !== "string") return null;
  const schema = REQUEST_SCHEMAS.get(request.method);
  if (!schema || schema.safeParse(message).success) return null;
  const id = typeof request.id === "string" || typeof request.id === "number" ? request.id : null;
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${request.method.slice(0, 40)}` },
  });
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
}
