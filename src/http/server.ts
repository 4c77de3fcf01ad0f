// Serves the app over HTTP with one JSON log line per request (id, status, duration) and a
// request id echoed to the client. Bun.serve where it exists, Deno.serve otherwise. This is the
// one place that knows the runtime, so it is where the TCP peer's address is read and handed on.

import { websocket as elysiaWebSocket } from "elysia/ws";
import { errors } from "../core/errors.ts";
import { MAX_WAIT_SECONDS } from "../core/events/index.ts";
import { newId } from "../core/ids.ts";
import type { Services } from "../core/services.ts";
import { httpRequestDuration } from "../metrics.ts";
import { uploadByteLimit } from "../request/body-limits.ts";
import { handleFromPeer, type PeerOf } from "../request/client-address.ts";
import { answerOf } from "../request/error-answers.ts";
import type { App } from "./app.ts";
import { pathOf } from "./request-path.ts";
import { methodLabel, routeLabel } from "./route-label.ts";

export type HttpServer = { port: number; stop(): Promise<void> };

/**
 * Elysia finds the path at a fixed offset past "http://" that assumes a host of four characters or
 * more: a Host of three or fewer ("api", "ab" on port 80) made every route 404. Such a request is
 * routed as if its host were "localhost"; its Host header is left as sent.
 */
export function withRoutableUrl(request: Request): Request {
  const url = request.url;
  const hostEnd = url.indexOf("/", url.indexOf("//") + 2);
  const hostLength = (hostEnd < 0 ? url.length : hostEnd) - (url.indexOf("//") + 2);
  if (hostLength > 3) return request;
  const rest = hostEnd < 0 ? "/" : url.slice(hostEnd);
  return new Request(`${url.slice(0, url.indexOf("//") + 2)}localhost${rest}`, request);
}

export function startHttpServer(svc: Services, app: App, port = svc.config.httpPort): HttpServer {
  const { config, log } = svc;
  const handle = async (request: Request, peerOf: PeerOf): Promise<Response> => {
    const started = performance.now();
    const requestId = newId("req");
    let response: Response;
    try {
      response = await handleFromPeer(app, request, peerOf);
    } catch (error) {
      log.error("http.handler_crashed", { request_id: requestId, error: String(error) });
      response = new Response(JSON.stringify(answerOf(errors.internal()).body), {
        status: 500,
        headers: { "content-type": "application/json" },
      });
    }
    response.headers.set("x-request-id", requestId);
    const elapsed = performance.now() - started;
    httpRequestDuration.observe(
      { method: methodLabel(request.method), route: routeLabel(request), status: String(response.status) },
      elapsed / 1000,
    );
    log.info("http.request", {
      request_id: requestId,
      method: request.method,
      // Unsubscribe tokens are capabilities: they never reach the logs.
      path: pathOf(request.url).replace(/^\/unsubscribe\/[^/]+/, "/unsubscribe/[token]"),
      status: response.status,
      duration_ms: Math.round(elapsed * 10) / 10,
    });
    return response;
  };

  if (typeof Bun !== "undefined") {
    const server = Bun.serve({
      hostname: config.host,
      port,
      // A backstop only: the app reads bodies itself and answers 413 as JSON at MAX_REQUEST_BYTES.
      maxRequestBodySize: Math.max(config.maxRequestBytes * 2, uploadByteLimit(config)) + 65536,
      fetch: async (incoming, server) => {
        const request = withRoutableUrl(incoming);
        // A WebSocket upgrade (/api/v1/events/ws) is answered by the upgrade itself, so its
        // response is not ours to add headers to; it gets its log line here (path only: the
        // query may carry the key).
        if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
          const response = (await app.handle(request)) as Response | undefined;
          // After a successful upgrade Elysia still returns an (ignored) 200: that is the 101.
          const status = !response || response.status === 200 ? 101 : response.status;
          log.info("http.upgrade", { request_id: newId("req"), path: new URL(request.url).pathname, status });
          return response as Response;
        }
        // An event stream is quiet between heartbeats; Bun's 10 s idle timeout would cut it.
        const requestPath = pathOf(request.url);
        if (requestPath === "/api/v1/events/stream") server.timeout(incoming, 0);
        // A long poll (and an MCP call of wait_for_message) is quiet for up to MAX_WAIT_SECONDS.
        else if (requestPath === "/api/v1/messages/wait" || requestPath === "/mcp") server.timeout(incoming, MAX_WAIT_SECONDS + 15);
        return handle(request, () => server.requestIP(incoming)?.address ?? null);
      },
      // A frame over the limit closes its connection (1009) before it is read into memory.
      websocket: {
        ...(elysiaWebSocket as unknown as Bun.WebSocketHandler<any>),
        maxPayloadLength: config.eventSocket.maxFrameBytes,
      },
    });
    // Elysia's .ws upgrades through the app's server.
    (app as { server: unknown }).server = server;
    return { port: server.port ?? port, stop: async () => void (await server.stop(false)) };
  }
  const deno = (globalThis as any).Deno;
  // onListen given: Deno.serve would print "Listening on ..." to stdout, outside our JSON log lines.
  const server = deno.serve({ hostname: config.host, port, onListen: () => {} }, (request: Request, info: any) =>
    handle(request, () => info?.remoteAddr?.hostname ?? null),
  );
  return { port: server.addr.port, stop: () => server.shutdown() };
}
