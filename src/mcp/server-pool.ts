// Idle MCP servers, reused across requests. Building one (the SDK's Server with its protocol
// handlers, then ours) costs ~0.7 ms of the event loop, which at 1,000 MCP requests a second was
// most of `list_mailboxes`'s cost (bench mailboxes). A server holds no state of its own between
// requests here besides the principal its tool handlers were made for: each request still gets a
// fresh transport, and a server is reused only by a request of exactly the same principal (same
// key and the same grants), so a changed or revoked key can never reach an old one.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Principal } from "../core/principal.ts";
import type { Services } from "../core/services.ts";
import { makeMcpServer } from "./server.ts";

const MAX_IDLE = 64;

export type McpServerPool = { take(principal: Principal): Server; give(principal: Principal, server: Server): void };

export function makeMcpServerPool(svc: Services): McpServerPool {
  const idle = new Map<string, Server[]>();
  let count = 0;
  const keyOf = (p: Principal) => JSON.stringify([p.keyId, p.accountId, p.plan, p.scope, p.mailboxId, p.canRead, p.canSend]);
  return {
    take(principal) {
      const list = idle.get(keyOf(principal));
      const server = list?.pop();
      if (!server) return makeMcpServer(svc, principal);
      count--;
      return server;
    },
    give(principal, server) {
      if (count >= MAX_IDLE) return;
      const key = keyOf(principal);
      const list = idle.get(key);
      if (list) list.push(server);
      else idle.set(key, [server]);
      count++;
    },
  };
}
