// Wraps dashboard handlers. A page needs a live session (else: to the sign-in page); an action
// (POST) also needs a same-origin request, a small form and the session's CSRF token. Every
// error a handler does not turn into a page itself ends here: 404 as the one not-found page.
import { CoreError } from "../core/errors.ts";
import type { Services } from "../core/services.ts";
import { errorFields } from "../log.ts";
import type { ClientAddressOf } from "../request/client-address.ts";
import { statusOf } from "../request/error-answers.ts";
import { type AuditFields, logAction, outcomeOf } from "./audit.ts";
import { recordAction } from "./audit-trail.ts";
import { readCookie, SESSION_COOKIE } from "./cookies.ts";
import { sameOrigin, tokenMatches } from "./csrf.ts";
import { type Form, FormTooLarge, readForm } from "./form.ts";
import { forbiddenPage, internalErrorPage, notFoundPage, tooLargePage, unavailablePage } from "./pages/errors.ts";
import { redirect } from "./respond.ts";
import { findSession, type Session } from "./session.ts";

export type PageContext = { svc: Services; request: Request; url: URL; session: Session; params: Record<string, string> };
/** `audit` collects ids and facts for the action's one log line (no secrets). */
export type ActionContext = PageContext & { form: Form; audit: AuditFields };

/** `clientAddressOf`: where a request came from, for the audit trail (null when unknown). */
export function makeGuard(svc: Services, clientAddressOf: ClientAddressOf = () => null) {
  async function sessionOf(request: Request): Promise<Session | null> {
    const token = readCookie(request, SESSION_COOKIE);
    return token ? findSession(svc.sql, token) : null;
  }

  async function run(session: Session, request: Request, handler: () => Promise<Response>): Promise<Response> {
    try {
      return await handler();
    } catch (error) {
      if (error instanceof CoreError && statusOf(error) === 404) return notFoundPage(session);
      if (error instanceof CoreError && statusOf(error) === 503) return unavailablePage(session);
      if (error instanceof FormTooLarge) return tooLargePage(session);
      svc.log.error("dashboard.unhandled_error", { method: request.method, path: new URL(request.url).pathname, ...errorFields(error) });
      return internalErrorPage(session);
    }
  }

  return {
    sessionOf,

    async page(request: Request, params: Record<string, string>, handler: (c: PageContext) => Promise<Response>): Promise<Response> {
      const session = await sessionOf(request);
      if (!session) return redirect("/dashboard/login");
      return run(session, request, () => handler({ svc, request, url: new URL(request.url), session, params }));
    },

    async action(
      request: Request,
      params: Record<string, string>,
      name: string,
      handler: (c: ActionContext) => Promise<Response>,
      maxFormBytes?: number,
    ): Promise<Response> {
      const session = await sessionOf(request);
      if (!session) return redirect("/dashboard/login");
      const audit: AuditFields = { target_id: params.id ?? null };
      const response = await run(session, request, async () => {
        if (!sameOrigin(request, svc.config)) {
          audit.reason = "foreign_origin";
          return forbiddenPage(session);
        }
        const form = await readForm(request, maxFormBytes);
        if (!tokenMatches(form.text("csrf", 200), session.csrf)) {
          audit.reason = "csrf";
          return forbiddenPage(session);
        }
        return handler({ svc, request, url: new URL(request.url), session, params, form, audit });
      });
      // One line per action, however it ended.
      const outcome = outcomeOf(response.status);
      logAction(svc.log, session, name, outcome, { status: response.status, ...audit });
      // The account's audit trail; the log line above stands if this write fails.
      await recordAction(svc.sql, session, name, outcome, { status: response.status, ...audit }, clientAddressOf(request)).catch((error) =>
        svc.log.error("dashboard.audit_write_failed", { action: name, ...errorFields(error) }),
      );
      return response;
    },
  };
}

export type Guard = ReturnType<typeof makeGuard>;
