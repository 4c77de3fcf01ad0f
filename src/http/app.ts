// Assembles the HTTP API: error mapping, size limits, the routes and /openapi.json.

import { Elysia } from "elysia";
import { CoreError, errors } from "../core/errors.ts";
import { eventHubFor } from "../core/events/index.ts";
import type { Services } from "../core/services.ts";
import { dashboardRoutes } from "../dashboard/routes.ts";
import { errorFields } from "../log.ts";
import { mcpRoutes } from "../mcp/routes.ts";
import { requestByteLimit } from "../request/body-limits.ts";
import { makeClientAddressOf } from "../request/client-address.ts";
import { answerOf } from "../request/error-answers.ts";
import { describeValidationFailure } from "../request/validation.ts";
import { eventSocketRoutes } from "./event-socket.ts";
import { buildOpenApiDocument } from "./openapi-document.ts";
import { referencePage } from "./reference-page.ts";
import { pathOf } from "./request-path.ts";
import { recordRoute } from "./route-label.ts";
import { consumerRoutes } from "./routes/consumers.ts";
import { domainRoutes } from "./routes/domains.ts";
import { draftAttachmentRoutes } from "./routes/draft-attachments.ts";
import { draftRoutes } from "./routes/drafts.ts";
import { eventRoutes } from "./routes/events.ts";
import { feedbackRoutes } from "./routes/feedback.ts";
import { forwardRoutes } from "./routes/forward.ts";
import { labelRoutes } from "./routes/labels.ts";
import { mailboxRoutes } from "./routes/mailboxes.ts";
import { messageRoutes } from "./routes/messages.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { operationsRoutes } from "./routes/operations.ts";
import { rsvpRoutes } from "./routes/rsvp.ts";
import { searchRoutes } from "./routes/search.ts";
import { sendRoutes } from "./routes/send.ts";
import { threadRoutes } from "./routes/threads.ts";
import { unsubscribeRoutes } from "./routes/unsubscribe.ts";

// Each resource's routes are an Elysia plugin built from the services.
const routeSets = [
  mailboxRoutes,
  domainRoutes,
  messageRoutes,
  feedbackRoutes,
  sendRoutes,
  forwardRoutes,
  rsvpRoutes,
  draftRoutes,
  draftAttachmentRoutes,
  unsubscribeRoutes,
  threadRoutes,
  searchRoutes,
  labelRoutes,
  eventRoutes,
  consumerRoutes,
];

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** A core error as the HTTP answer the table gives it. */
function answer(error: CoreError): Response {
  const { status, body, headers } = answerOf(error);
  return json(status, body, headers);
}

function errorResponse(svc: Services, code: string | number, error: unknown, request: Request): Response {
  const cause = (error as { cause?: unknown })?.cause;
  if (error instanceof CoreError) return answer(error);
  // A key checked in the parse hook surfaces as a PARSE error wrapping our CoreError.
  if (cause instanceof CoreError) return answer(cause);
  if (code === "VALIDATION") return answer(errors.validation(describeValidationFailure(error)));
  if (code === "PARSE") return answer(errors.malformedJson());
  if (code === "NOT_FOUND") return answer(errors.routeNotFound());
  svc.log.error("http.unhandled_error", { method: request.method, path: new URL(request.url).pathname, ...errorFields(error) });
  return answer(errors.internal());
}

export function makeApp(svc: Services) {
  // Built on first request, once every route is registered; routes never change afterwards.
  let cached: Record<string, any> | null = null;
  const document = (): Record<string, any> => (cached ??= buildOpenApiDocument(app as never));
  const app = new Elysia({ normalize: false })
    .onRequest(({ request }) => {
      // A NUL anywhere in the path cannot name anything we store. API routes answer it themselves
      // (text-input.ts), after the bearer check and with the resource's own 404.
      const path = pathOf(request.url);
      if (/%00/i.test(path) && !path.startsWith("/api/v1/")) return answer(errors.routeNotFound());
      // No API path ends in a slash: `/api/v1/messages/` is not the list route (Elysia would match it).
      if (path.startsWith("/api/v1/") && path.endsWith("/")) return answer(errors.routeNotFound());
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > requestByteLimit(svc.config, request.method, path)) return answer(errors.bodyTooLarge());
    })
    .onError(({ code, error, request }) => errorResponse(svc, code, error, request))
    // Runs once a route matched, before validation: the request-duration metric's route label.
    .onTransform({ as: "global" }, ({ request, route }) => recordRoute(request, route))
    .use(operationsRoutes(svc))
    .use(metricsRoutes(svc))
    .get("/openapi.json", () => document(), { detail: { hide: true } })
    .get("/docs", () => new Response(referencePage(document()), { headers: { "content-type": "text/html; charset=utf-8" } }), {
      detail: { hide: true },
    });
  for (const routes of routeSets) app.use(routes(svc));
  // The WebSocket upgrade needs Bun's server; under Deno the SSE stream serves the same feed.
  if (typeof Bun !== "undefined") app.use(eventSocketRoutes(svc));
  app.use(dashboardRoutes(svc, makeClientAddressOf(svc.config.trustedProxies)));
  // MCP's wait_for_message waits on this process's hub, as GET /api/v1/messages/wait does.
  svc.eventWake ??= eventHubFor(svc);
  app.use(mcpRoutes(svc));
  return app;
}

export type App = ReturnType<typeof makeApp>;
