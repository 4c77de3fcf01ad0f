// Reads a POST /mcp body ourselves, before the SDK transport sees it, so that it gets the HTTP
// API's limits: the same byte limit, the same nesting limit (a deeply nested argument would
// otherwise overflow the stack in validation and end as a 500), and one JSON-RPC message per
// request (a batch would let one request fan out into many concurrent sends; protocol
// 2025-06-18 dropped batching anyway). The parsed message is handed on as `parsedBody`.

import { MAX_JSON_DEPTH, nestingDepth, readBodyWithin } from "../http/body-limits.ts";

const MAX_BATCH_MESSAGES = 1;

type McpBody = { ok: true; message: unknown } | { ok: false; response: Response };

function rpcError(status: number, code: number, message: string): { ok: false; response: Response } {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  return { ok: false, response: new Response(body, { status, headers: { "content-type": "application/json" } }) };
}

export async function readMcpBody(request: Request, maxBytes: number): Promise<McpBody> {
  const text = await readBodyWithin(request, maxBytes);
  if (text === null) return rpcError(413, -32000, `Payload Too Large: Request body must not exceed ${maxBytes} bytes`);
  if (nestingDepth(text) > MAX_JSON_DEPTH) return rpcError(400, -32600, `Invalid Request: request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
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
