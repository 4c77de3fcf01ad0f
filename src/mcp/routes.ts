// POST /mcp: the MCP Streamable HTTP transport (JSON-RPC 2.0), stateless. Every request carries
// `Authorization: Bearer <key>` and is authenticated exactly as the HTTP API authenticates, before
// any JSON-RPC is read. Each request is served by a server made for its principal and reused from
// an earlier request of the same principal, already connected (server-pool.ts); no session state
// lives in the process, so any copy behind a load balancer can answer any request.

import { Elysia } from "elysia";
import { CoreError, errors, isCoreError } from "../core/errors.ts";
import type { Principal } from "../core/principal.ts";
import type { Services } from "../core/services.ts";
import { errorFields } from "../log.ts";
import { authenticate } from "../request/auth.ts";
import { answerOf } from "../request/error-answers.ts";
import { rateLimiterFor } from "../request/rate-limit.ts";
import type { RateLimitFields } from "../request/rate-limit-fields.ts";
import { invalidParams, readMcpBody } from "./body.ts";
import { callDirect, directToolCall } from "./server.ts";
import { type McpServerPool, makeMcpServerPool } from "./server-pool.ts";
import { checkPlainPost, checkPost, dispatch } from "./streamable-http.ts";

const MCP_PATH = "/mcp";

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

// The RateLimit fields of each admitted request, added to whatever it is answered.
const limits = new WeakMap<Request, RateLimitFields>();

function withRateLimitFields(request: Request, response: Response): Response {
  const fields = limits.get(request);
  if (fields) for (const [name, value] of Object.entries(fields)) response.headers.set(name, value);
  return response;
}

async function principalOf(svc: Services, request: Request): Promise<Principal | Response> {
  try {
    const principal = await authenticate(svc.sql, request.headers.get("authorization"));
    const fields = await rateLimiterFor(svc).take(principal.keyId);
    if (fields) limits.set(request, fields);
    return principal;
  } catch (error) {
    if (isCoreError(error, "rate_limited")) {
      const answer = answerOf(error);
      return json(answer.status, answer.body, answer.headers);
    }
    if (error instanceof CoreError) return json(answerOf(error).status, answerOf(error).body, { "www-authenticate": 'Bearer realm="mcp"' });
    throw error;
  }
}

async function handlePost(svc: Services, servers: McpServerPool, request: Request): Promise<Response> {
  const principal = await principalOf(svc, request);
  if (principal instanceof Response) return principal;
  const body = await readMcpBody(request, svc.config.maxRequestBytes);
  if (!body.ok) return body.response;
  // The common tools/call is answered without the SDK server (server.ts says why it is the same).
  const direct = directToolCall(body.message);
  if (direct) {
    const refused = checkPlainPost(request);
    if (refused) return refused;
    return callDirect(svc, principal, direct);
  }
  const invalid = invalidParams(body.message);
  if (invalid) return invalid;
  const messages = checkPost(request, body.message);
  if (messages instanceof Response) return messages;
  // A server of this principal's from an earlier request when one is idle (server-pool.ts).
  const pooled = servers.take(principal);
  try {
    // JSON responses, not SSE: every tool answers once, and nothing is pushed to clients.
    const response = await dispatch(pooled.transport, messages);
    servers.give(principal, pooled);
    return response;
  } catch (error) {
    // Not given back: a server that failed this way is not trusted with another request.
    svc.log.error("mcp.transport_failed", { key_id: principal.keyId, ...errorFields(error) });
    return json(500, { jsonrpc: "2.0", error: { code: -32603, message: errors.internal().message }, id: null });
  }
}

// Stateless: no server-initiated stream to open (GET) and no session to end (DELETE). The
// transport spec's answer for both is 405; the key is still checked first, as everywhere.
async function methodNotAllowed(svc: Services, request: Request): Promise<Response> {
  const principal = await principalOf(svc, request);
  if (principal instanceof Response) return principal;
  return json(
    405,
    { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this MCP server is stateless; use POST" }, id: null },
    { allow: "POST" },
  );
}

export const mcpRoutes = (svc: Services, servers: McpServerPool = makeMcpServerPool(svc)) =>
  new Elysia({ name: "routes:mcp" })
    // parse "none": body.ts reads the body, under the API's size and nesting limits.
    .post(MCP_PATH, async ({ request }) => withRateLimitFields(request, await handlePost(svc, servers, request)), {
      parse: "none",
      detail: { hide: true },
    })
    .get(MCP_PATH, async ({ request }) => withRateLimitFields(request, await methodNotAllowed(svc, request)), { detail: { hide: true } })
    .delete(MCP_PATH, async ({ request }) => withRateLimitFields(request, await methodNotAllowed(svc, request)), {
      parse: "none",
      detail: { hide: true },
    });
