// The POST rules of MCP's Streamable HTTP transport for a stateless server that answers JSON,
// applied to a body body.ts has already read and parsed: they are what the SDK's transport
// checks (in its order, with its status codes and messages), so that a pooled server connected to
// a ReplyTransport can take the message without a new SDK transport per request.
//
//   406  the client must accept both application/json and text/event-stream
//   415  the body must be application/json
//   400  -32700 when a message is not JSON-RPC; -32000 for an MCP-Protocol-Version we do not speak
//   202  when the body holds only notifications or responses (nothing to answer)
//   200  the reply as JSON (one request, one reply)
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import {
  isInitializeRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCNotification,
  type JSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonRpcReply, ReplyTransport } from "./reply-transport.ts";

const JSON_HEADERS = { "content-type": "application/json" };

export function rpcErrorResponse(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { ...JSON_HEADERS, ...headers },
  });
}

/** The MCP messages in a POST body (one, or a batch), or the response refusing them. */
export function checkPost(request: Request, body: unknown): JSONRPCMessage[] | Response {
  const refused = checkPostHeaders(request);
  if (refused) return refused;
  const messages: JSONRPCMessage[] = [];
  for (const raw of Array.isArray(body) ? body : [body]) {
    if (isPlainRequest(raw)) {
      messages.push(raw);
      continue;
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (!parsed.success) return rpcErrorResponse(400, -32700, "Parse error: Invalid JSON-RPC message");
    messages.push(parsed.data);
  }
  const initializing = messages.some((message) => "method" in message && message.method === "initialize" && isInitializeRequest(message));
  if (initializing && messages.length > 1) {
    return rpcErrorResponse(400, -32600, "Invalid Request: Only one initialization request is allowed");
  }
  // Initialization negotiates the version in its body; every later request may name it.
  return (initializing ? null : checkProtocolVersion(request)) ?? messages;
}

/**
 * checkPost for one request already known to be a plain request (isPlainRequest) other than
 * initialize: the same answers, without looking at the message again.
 */
export function checkPlainPost(request: Request): Response | null {
  return checkPostHeaders(request) ?? checkProtocolVersion(request);
}

function checkPostHeaders(request: Request): Response | null {
  const accept = request.headers.get("accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) {
    return rpcErrorResponse(406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream");
  }
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return rpcErrorResponse(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  }
  return null;
}

function checkProtocolVersion(request: Request): Response | null {
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return rpcErrorResponse(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  return null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const ENVELOPE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * The common request, checked without the SDK's schema (its zod union costs about as much as
 * the rest of the envelope handling): exactly jsonrpc "2.0", a string or safe-integer id, a
 * string method and, if any, params that are an object without `_meta`. Whatever this does not
 * accept goes to JSONRPCMessageSchema, so it decides every other case exactly as before.
 */
export function isPlainRequest(value: unknown): value is JSONRPCRequest {
  if (!isObject(value)) return false;
  for (const key in value) if (!ENVELOPE_KEYS.has(key)) return false;
  const { jsonrpc, id, method, params } = value;
  return (
    jsonrpc === "2.0" &&
    typeof method === "string" &&
    (typeof id === "string" || Number.isSafeInteger(id)) &&
    (!("params" in value) || (isObject(params) && !("_meta" in params)))
  );
}

const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => "method" in message && "id" in message;
const isNotification = (message: JSONRPCMessage): message is JSONRPCNotification => "method" in message && !("id" in message);

/**
 * Hands checked messages to a connected server: notifications pass on and are answered 202, as
 * are responses (this server asks clients nothing, so none can be awaited); requests are answered
 * with their replies, one object for one request and an array for several.
 */
export async function dispatch(transport: ReplyTransport, messages: JSONRPCMessage[]): Promise<Response> {
  const replies: Promise<JsonRpcReply>[] = [];
  for (const message of messages) {
    if (isRequest(message)) replies.push(transport.request(message));
    else if (isNotification(message)) transport.notify(message);
  }
  if (replies.length === 0) return new Response(null, { status: 202 });
  const answered = await Promise.all(replies);
  return new Response(JSON.stringify(answered.length === 1 ? answered[0] : answered), { status: 200, headers: JSON_HEADERS });
}
