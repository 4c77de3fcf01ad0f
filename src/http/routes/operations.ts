// Liveness and readiness probes for load balancers and orchestrators; not part of the API document.
import { Elysia } from "elysia";
import type { Services } from "../../core/services.ts";

export const operationsRoutes = (svc: Services) =>
  new Elysia({ name: "routes:operations" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { hide: true } })
    .get(
      "/readyz",
      async ({ set }) => {
        try {
          await svc.sql`select 1`;
          return { status: "ready" };
        } catch {
          set.status = 503;
          return { status: "database unreachable" };
        }
      },
      { detail: { hide: true } },
    );
