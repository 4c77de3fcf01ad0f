// The dashboard's routes under /dashboard: server-rendered pages (GET never changes state) and
// form actions (POST, each behind the CSRF guard). Hidden from /openapi.json: the dashboard is
// the control plane for humans, not part of the API.
import { Elysia } from "elysia";
import type { Services } from "../core/services.ts";
import type { ClientAddressOf } from "../request/client-address.ts";
import { icon, stylesheet } from "./assets.ts";
import { type ActionContext, makeGuard, type PageContext } from "./guard.ts";
import { activityPage } from "./pages/activity.ts";
import { approvalsPage } from "./pages/approvals.ts";
import { domainsPage } from "./pages/domains.ts";
import { notFoundPage } from "./pages/errors.ts";
import { correctionsPage, feedbackActions } from "./pages/feedback.ts";
import { keysPage } from "./pages/keys.ts";
import { makeLoginHandlers } from "./pages/login.ts";
import { mailPage } from "./pages/mail.ts";
import { mailboxesPage } from "./pages/mailboxes.ts";
import { changeLabelsAction, messagePage } from "./pages/message.ts";
import { originalPages } from "./pages/message-original.ts";
import { overviewPage } from "./pages/overview.ts";
import { peoplePage } from "./pages/people.ts";
import { makeReviewPages } from "./pages/review.ts";
import { SCHEMA_FORM_BYTES, schemasPage } from "./pages/schemas.ts";
import { sendListsPage } from "./pages/sendlists.ts";
import { webhookPage } from "./pages/webhook.ts";

// No body parsing by Elysia: actions read their own small, length-limited form.
const hidden = { detail: { hide: true }, parse: "none" } as const;

type Route = { request: Request; params: Record<string, string> };

/** `clientAddressOf` tells the sign-in throttle where a request came from (see src/http/app.ts). */
export function dashboardRoutes(svc: Services, clientAddressOf: ClientAddressOf) {
  const guard = makeGuard(svc, clientAddressOf);
  const login = makeLoginHandlers(svc, guard);
  const page =
    (handler: (c: PageContext) => Promise<Response>) =>
    ({ request, params }: Route) =>
      guard.page(request, params ?? {}, handler);
  const action =
    (name: string, handler: (c: ActionContext) => Promise<Response>, maxFormBytes?: number) =>
    ({ request, params }: Route) =>
      guard.action(request, params ?? {}, name, handler, maxFormBytes);
  const notFound = page(async (c) => notFoundPage(c.session));
  // A reviewer's email link (/review/...): no session, the token is the credential (pages/review.ts).
  const review = makeReviewPages(svc, clientAddressOf);

  return new Elysia({ name: "dashboard", prefix: "/dashboard" })
    .get("/assets/style.css", () => stylesheet(), hidden)
    .get("/assets/icon.svg", () => icon(), hidden)
    .get("/login", ({ request }) => login.show(request), hidden)
    .post("/login", ({ request }) => login.submit(request, clientAddressOf(request)), hidden)
    .post("/logout", action("logout", login.logout), hidden)
    .get("", page(overviewPage), hidden)
    .get("/", page(overviewPage), hidden)
    .get("/keys", page(keysPage.show), hidden)
    .post("/keys", action("key.create", keysPage.create), hidden)
    .post("/keys/:id/revoke", action("key.revoke", keysPage.revoke), hidden)
    .get("/sendlists", page(sendListsPage.show), hidden)
    .post("/sendlists", action("sendlist.add", sendListsPage.add), hidden)
    .post("/sendlists/:id/remove", action("sendlist.remove", sendListsPage.remove), hidden)
    .get("/approvals", page(approvalsPage.show), hidden)
    .get("/review/:token", ({ request, params }: Route) => review.show(request, params.token ?? ""), hidden)
    .post("/review", ({ request }: Route) => review.answer(request), hidden)
    .post("/approvals/:id/approve", action("draft.approve", approvalsPage.approve), hidden)
    .post("/approvals/:id/reject", action("draft.reject", approvalsPage.reject), hidden)
    .get("/mailboxes", page(mailboxesPage.show), hidden)
    .post("/mailboxes/:id/settings", action("mailbox.settings", mailboxesPage.update), hidden)
    .get("/webhook", page(webhookPage.show), hidden)
    .post("/webhook", action("webhook.set", webhookPage.set), hidden)
    .post("/webhook/disable", action("webhook.disable", webhookPage.disable), hidden)
    .post("/webhook/events", action("webhook.events", webhookPage.events), hidden)
    .get("/webhook/deliveries/:id", page(webhookPage.delivery), hidden)
    .post("/webhook/deliveries/:id/redrive", action("webhook.redrive", webhookPage.redrive), hidden)
    .get("/mail", page(mailPage), hidden)
    .get(
      "/mail/:id",
      page((c) => messagePage(c)),
      hidden,
    )
    .post("/mail/:id/labels", action("message.labels", changeLabelsAction), hidden)
    .post("/mail/:id/feedback", action("message.feedback", feedbackActions.give), hidden)
    .post("/mail/:id/feedback/undo", action("message.feedback_undo", feedbackActions.undo), hidden)
    .get("/corrections", page(correctionsPage), hidden)
    .get("/mail/:id/original", page(originalPages.frame), hidden)
    .get("/mail/:id/raw", page(originalPages.raw), hidden)
    .get("/mail/:id/attachments/:attachment", page(originalPages.attachment), hidden)
    .get("/activity", page(activityPage), hidden)
    .get("/domains", page(domainsPage.show), hidden)
    .post("/domains", action("domain.add", domainsPage.add), hidden)
    .get("/domains/:id", page(domainsPage.detail), hidden)
    .post("/domains/:id/verify", action("domain.verify", domainsPage.verify), hidden)
    .get("/people", page(peoplePage.show), hidden)
    .post("/people", action("person.add", peoplePage.add), hidden)
    .post("/people/password", action("password.change", peoplePage.changePassword), hidden)
    .post("/people/:id/remove", action("person.remove", peoplePage.remove), hidden)
    .post("/people/:id/reviews", action("person.reviews", peoplePage.reviews), hidden)
    .get("/schemas", page(schemasPage.show), hidden)
    .post("/schemas", action("schema.create", schemasPage.create, SCHEMA_FORM_BYTES), hidden)
    .post("/schemas/attach", action("schema.attach", schemasPage.attach), hidden)
    .get("/*", notFound, hidden)
    .post(
      "/*",
      action("unknown", async (c) => notFoundPage(c.session)),
      hidden,
    );
}
