// Idle MCP servers, reused across requests, each already connected to a transport of its own
// (reply-transport.ts). Building one (the SDK's Server with its protocol handlers, then ours)
// holds the event loop, and a new SDK transport per request with its connect and close would be
// most of a cheap tool call's cost. A server holds no state of
// its own between requests besides the principal its tool handlers were made for: it is reused
// only by a request of exactly the same principal (same key and the same grants), so a changed or
// revoked key can never reach an old one, and a request has its server to itself while it runs.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Principal } from "../core/principal.ts";
import type { Services } from "../core/services.ts";
import { ReplyTransport } from "./reply-transport.ts";
import { makeMcpServer } from "./server.ts";

const MAX_IDLE = 64;

export type PooledServer = { readonly server: Server; readonly transport: ReplyTransport };

export type McpServerPool = { take(principal: Principal): PooledServer; give(principal: Principal, pooled: PooledServer): void };

function connectedServer(svc: Services, principal: Principal): PooledServer {
  const server = makeMcpServer(svc, principal);
  const transport = new ReplyTransport();
  // connect() wires the transport's callbacks at once; what it awaits (start) does nothing.
  void server.connect(transport);
  return { server, transport };
}

export function makeMcpServerPool(svc: Services): McpServerPool {
  const idle = new Map<string, PooledServer[]>();
  let count = 0;
  const keyOf = (p: Principal) => JSON.stringify([p.keyId, p.accountId, p.plan, p.scope, p.mailboxId, p.canRead, p.canSend]);
  return {
    take(principal) {
      const key = keyOf(principal);
      const list = idle.get(key);
      const pooled = list?.pop();
      if (!pooled) return connectedServer(svc, principal);
      if (list!.length === 0) idle.delete(key);
      count--;
      return pooled;
    },
    give(principal, pooled) {
      // Only a server with nothing in flight is idle (a request ends only once every reply is
      // out, so this is a guard); one beyond the bound is closed and let go.
      if (pooled.transport.inFlight > 0) return;
      if (count >= MAX_IDLE) {
        void pooled.server.close();
        return;
      }
      const key = keyOf(principal);
      const list = idle.get(key);
      if (list) list.push(pooled);
      else idle.set(key, [pooled]);
      count++;
    },
  };
}
