// Sign-in and sign-out. The sign-in form carries a token that must match a cookie set with the
// form (so another site cannot sign a browser into an account of its choosing). A wrong email
// and a wrong password get the same page, status and timing; repeated failures are throttled per
// (email, client address) and per client address (see throttle.ts).
import type { Services } from "../../core/services.ts";
import { errorFields } from "../../log.ts";
import { base64url, randomBytes } from "../../secrets.ts";
import { logAction } from "../audit.ts";
import { recordAction } from "../audit-trail.ts";
import { clearCookie, LOGIN_COOKIE, readCookie, SESSION_COOKIE, setCookie } from "../cookies.ts";
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH, makeCredentialCheck, normalizeEmail } from "../credentials.ts";
import { sameOrigin, tokenMatches } from "../csrf.ts";
import { FormTooLarge, readForm } from "../form.ts";
import type { ActionContext, Guard } from "../guard.ts";
import { html } from "../html.ts";
import { layout, type Notice } from "../layout.ts";
import { htmlResponse, redirect } from "../respond.ts";
import { ABSOLUTE_SECONDS, createSession, deleteSession } from "../session.ts";
import { attemptSucceeded, startAttempt, type ThrottleLimit, throttleKey, WINDOW_SECONDS } from "../throttle.ts";
import { forbiddenPage, tooLargePage } from "./errors.ts";

const LOGIN_TOKEN_SECONDS = 3600;
const WRONG = "Email or password is incorrect.";
const MINUTES = Math.round(WINDOW_SECONDS / 60);
const THROTTLED: Record<ThrottleLimit, string> = {
  pair: `Too many failed sign-ins for this email. Try again in ${MINUTES} minutes.`,
  client: `Too many failed sign-ins from your network. Try again in ${MINUTES} minutes.`,
};

function loginForm(token: string, notice: Notice | null): ReturnType<typeof layout> {
  const body = html`<form method="post" action="/dashboard/login" class="card narrow">
<input type="hidden" name="login_token" value="${token}">
<label>Email <input type="email" name="email" required maxlength="${MAX_EMAIL_LENGTH}" autocomplete="username"></label>
<label>Password <input type="password" name="password" required maxlength="${MAX_PASSWORD_LENGTH}" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form>
<p class="hint">The first start of the service prints the first login. More users: <code>npm run cli -- user create</code>.</p>`;
  return layout("Sign in", body, null, notice);
}

export function makeLoginHandlers(svc: Services, guard: Guard) {
  const checkCredentials = makeCredentialCheck(svc.sql);

  function showForm(request: Request, notice: Notice | null, status: number): Response {
    // Reuse the browser's token while it is valid, so two tabs do not invalidate each other.
    const token = readCookie(request, LOGIN_COOKIE) ?? base64url(randomBytes(24));
    return htmlResponse(loginForm(token, notice), status, [setCookie(request, svc.config, LOGIN_COOKIE, token, LOGIN_TOKEN_SECONDS)]);
  }

  return {
    async show(request: Request): Promise<Response> {
      if (await guard.sessionOf(request)) return redirect("/dashboard");
      return showForm(request, null, 200);
    },

    /** `address` is the client's, as the HTTP layer worked it out (null when it could not). */
    async submit(request: Request, address: string | null): Promise<Response> {
      if (!sameOrigin(request, svc.config)) return forbiddenPage(null);
      let form: Awaited<ReturnType<typeof readForm>>;
      try {
        form = await readForm(request);
      } catch (error) {
        if (error instanceof FormTooLarge) return tooLargePage(null);
        throw error;
      }
      const cookieToken = readCookie(request, LOGIN_COOKIE);
      if (!cookieToken || !tokenMatches(form.text("login_token", 200), cookieToken)) {
        logAction(svc.log, null, "login", "rejected", { reason: "login_token", client: address });
        return forbiddenPage(null);
      }
      const email = normalizeEmail(form.text("email", MAX_EMAIL_LENGTH) ?? "");
      const password = form.secret("password", MAX_PASSWORD_LENGTH);
      if (!email || !password) return showForm(request, { kind: "error", text: WRONG }, 401);
      const client = throttleKey(address);
      const { throttled, retryAfterSeconds } = await startAttempt(svc.sql, email, client);
      if (throttled) {
        logAction(svc.log, null, "login", "rejected", { reason: "throttled", limit: throttled, client: address });
        const refused = showForm(request, { kind: "error", text: THROTTLED[throttled] }, 429);
        refused.headers.set("retry-after", String(retryAfterSeconds));
        return refused;
      }
      const user = await checkCredentials(email, password);
      if (!user) {
        // The attempt's row stays: it is this failure.
        logAction(svc.log, null, "login", "rejected", { reason: "credentials", client: address });
        return showForm(request, { kind: "error", text: WRONG }, 401);
      }
      await attemptSucceeded(svc.sql, email, client);
      const token = await createSession(svc.sql, user);
      logAction(svc.log, { userId: user.id, accountId: user.accountId }, "login", "ok", { client: address });
      // Sign-ins belong in the account's audit trail too (failures name no account to file them under).
      await recordAction(
        svc.sql,
        { userId: user.id, accountId: user.accountId, email: user.email },
        "login",
        "ok",
        { client: address },
        address,
      ).catch((error) => svc.log.error("dashboard.audit_write_failed", { action: "login", ...errorFields(error) }));
      return redirect("/dashboard", [
        setCookie(request, svc.config, SESSION_COOKIE, token, ABSOLUTE_SECONDS),
        clearCookie(request, svc.config, LOGIN_COOKIE),
      ]);
    },

    async logout({ request }: ActionContext): Promise<Response> {
      const token = readCookie(request, SESSION_COOKIE);
      if (token) await deleteSession(svc.sql, token);
      return redirect("/dashboard/login", [clearCookie(request, svc.config, SESSION_COOKIE)]);
    },
  };
}
