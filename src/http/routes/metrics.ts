// GET /metrics in Prometheus text format, for the operator's scraper only: it needs the bearer
// token in METRICS_TOKEN, compared in constant time. Without a token configured, or with a wrong
// one, the answer is the same 404 as any unknown route, so the endpoint's existence is not shown.
import { Elysia } from "elysia";
import { errors } from "../../core/errors.ts";
import { operationalStats } from "../../core/queue-stats.ts";
import type { Services } from "../../core/services.ts";
import { dbConnections, dbPoolMax, queueFailedJobs, queueJobs, queueOldestJobAge, registry, webhookDeadDeliveries } from "../../metrics.ts";
import { answerOf } from "../../request/error-answers.ts";
import { constantTimeEqual } from "../../secrets.ts";

/** The same 404 as any unknown route. */
export function notFound(): Response {
  return new Response(JSON.stringify(answerOf(errors.routeNotFound()).body), {
    status: 404,
    headers: { "content-type": "application/json" },
  });
}

export const metricsRoutes = (svc: Services) =>
  new Elysia({ name: "routes:metrics" }).get(
    "/metrics",
    async ({ request }) => {
      const token = svc.config.metricsToken;
      const header = request.headers.get("authorization") ?? "";
      const match = /^Bearer (.+)$/i.exec(header);
      if (!token || !match || !constantTimeEqual(match[1]!, token)) return notFound();
      const stats = await operationalStats(svc.sql);
      // Gauges read at scrape time are reset first, so a task whose jobs are all gone reads 0.
      for (const gauge of [queueJobs, queueOldestJobAge, queueFailedJobs, dbConnections]) gauge.reset();
      for (const row of stats.queue) {
        queueJobs.set({ task: row.task }, row.jobs);
        queueFailedJobs.set({ task: row.task }, row.failed);
        queueOldestJobAge.set({ task: row.task }, row.oldestAgeSeconds);
      }
      webhookDeadDeliveries.set(stats.deadWebhookDeliveries);
      for (const row of stats.connections) dbConnections.set({ state: row.state }, row.count);
      dbPoolMax.set(Number((svc.sql as unknown as { options: { max: number } }).options.max));
      return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
    },
    { detail: { hide: true } },
  );
