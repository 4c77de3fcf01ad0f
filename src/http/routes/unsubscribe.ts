// The public one-click unsubscribe endpoint (RFC 8058) linked from every outbound message.
// GET shows a confirmation form (link scanners must not unsubscribe anyone); POST unsubscribes.
import { Elysia } from "elysia";
import { unsubscribeWithToken } from "../../core/outbound/index.ts";
import type { Services } from "../../core/services.ts";
import { withSecurityHeaders } from "../../dashboard/respond.ts";
import { escapeHtml } from "../../html-escape.ts";

// The dashboard's security headers (CSP with no inline style or script, no framing, nosniff, no
// referrer, no-store): the page is plain HTML with no style of its own.
function page(status: number, title: string, body: string): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`,
    { status, headers: withSecurityHeaders({ "content-type": "text/html; charset=utf-8" }) },
  );
}

export const unsubscribeRoutes = (svc: Services) =>
  new Elysia({ name: "routes:unsubscribe" })
    .get(
      "/unsubscribe/:token",
      ({ params }) =>
        page(
          200,
          "Unsubscribe",
          `<h1>Unsubscribe</h1><p>Stop receiving mail from this sender?</p>
<form method="post" action="/unsubscribe/${encodeURIComponent(params.token)}"><button type="submit">Unsubscribe</button></form>`,
        ),
      { detail: { hide: true } },
    )
    .post(
      "/unsubscribe/:token",
      async ({ params }) => {
        const done = await unsubscribeWithToken(svc.sql, svc.config, params.token);
        if (!done) return page(404, "Unsubscribe", "<h1>This unsubscribe link is not valid.</h1>");
        svc.log.info("unsubscribe.link_used", {});
        return page(200, "Unsubscribed", "<h1>You are unsubscribed.</h1><p>You will not receive further mail from this sender.</p>");
      },
      { parse: "text", detail: { hide: true } },
    );
