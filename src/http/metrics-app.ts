// For a process without the api role (ROLES=smtp or ROLES=worker copies): its own counters are only
// in its memory, so with METRICS_PORT set it serves GET /metrics (same token rule) and the probes
// on that port, and nothing else.
import { Elysia } from "elysia";
import type { Services } from "../core/services.ts";
import type { App } from "./app.ts";
import { metricsRoutes, notFound } from "./routes/metrics.ts";
import { operationsRoutes } from "./routes/operations.ts";

export function makeMetricsApp(svc: Services): App {
  const app = new Elysia({ normalize: false })
    .onError(() => notFound())
    .use(operationsRoutes(svc))
    .use(metricsRoutes(svc));
  // The server only calls handle(); the full app's type is what it is written against.
  return app as unknown as App;
}
