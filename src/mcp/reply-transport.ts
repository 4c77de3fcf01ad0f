// The SDK's Transport for a Server that stays connected across HTTP requests. The SDK's own
// Streamable HTTP transport serves one request and must then be closed (stateless mode), so every
// POST paid for a new transport, a connect and a close, and for its per-message schema checks in
// both directions (the reply, with the whole tool result, was parsed again by zod before it was
// written). Here a POST hands its JSON-RPC request in and awaits the reply matched by id; the HTTP
// rules of Streamable HTTP are applied by streamable-http.ts before anything reaches the server.
//
// Ids: a client picks its own ids (every request of `bench mailboxes` is id 1), so two requests in
// flight on one server may carry the same one. Each request is given an id of this transport's
// own on the way in, and the client's id is put back on its reply.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/** What the server answers a request with: a result or an error, under the client's id. */
export type JsonRpcReply = JSONRPCResponse;

export class ReplyTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  private readonly waiting = new Map<number, { clientId: RequestId; resolve(reply: JsonRpcReply): void }>();
  private lastId = 0;
  private closed = false;

  async start(): Promise<void> {}

  /** Hands one request to the server; resolves with its reply, under the client's id. */
  request(message: JSONRPCRequest): Promise<JsonRpcReply> {
    if (this.closed) return Promise.reject(new Error("the MCP transport is closed"));
    const id = ++this.lastId;
    return new Promise((resolve) => {
      this.waiting.set(id, { clientId: message.id, resolve });
      this.onmessage?.({ ...message, id });
    });
  }

  /**
   * Hands a notification to the server; nothing is answered. A cancellation names a request by the
   * client's id, which means nothing here (ids are per HTTP request in stateless mode, and ours are
   * renumbered): it is not passed on, so it can never cancel some other request in flight.
   */
  notify(message: JSONRPCNotification): void {
    if (this.closed || message.method === "notifications/cancelled") return;
    this.onmessage?.(message);
  }

  /** How many requests await their reply (none once every reply is out). */
  get inFlight(): number {
    return this.waiting.size;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // A request or notification from the server has no HTTP request to travel in: this server
    // answers JSON, opens no SSE stream and sends nothing unasked (the tools never do).
    if (!("id" in message) || "method" in message) return;
    const id = message.id;
    const waiter = typeof id === "number" ? this.waiting.get(id) : undefined;
    if (!waiter) return;
    this.waiting.delete(id as number);
    waiter.resolve({ ...message, id: waiter.clientId } as JsonRpcReply);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The server aborts its handlers on close, so no reply would come: each waiting request is
    // answered now rather than left hanging (the pool closes only idle servers, so none should be).
    for (const { clientId, resolve } of this.waiting.values()) {
      resolve({ jsonrpc: "2.0", id: clientId, error: { code: ErrorCode.ConnectionClosed, message: "Connection closed" } });
    }
    this.waiting.clear();
    this.onclose?.();
  }
}
