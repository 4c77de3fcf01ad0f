// The dashboard's error pages. The 404 page is one fixed page: a missing id and another account's
// id render it byte for byte alike, so the dashboard cannot be used to probe for ids.
import { html } from "../html.ts";
import { layout } from "../layout.ts";
import { htmlResponse } from "../respond.ts";
import type { Session } from "../session.ts";

export function notFoundPage(session: Session | null): Response {
  return htmlResponse(
    layout(
      "Not found",
      html`<p>There is nothing here. It may have been removed.</p><p><a href="/dashboard">Back to the overview</a></p>`,
      session,
    ),
    404,
  );
}

/** A POST whose CSRF token or origin did not check out; the same page for every such reason. */
export function forbiddenPage(session: Session | null): Response {
  const back = session ? html`<a href="/dashboard">Back to the overview</a>` : html`<a href="/dashboard/login">Sign in</a>`;
  return htmlResponse(
    layout(
      "Request refused",
      html`<p>This form has expired or did not come from this dashboard. Reload the page and try again.</p><p>${back}</p>`,
      session,
    ),
    403,
  );
}

export function tooLargePage(session: Session | null): Response {
  return htmlResponse(layout("Request too large", html`<p>The form was larger than the dashboard accepts.</p>`, session), 413);
}

/** Message content in the object store that cannot be read right now: 503, never a 500. */
export function unavailablePage(session: Session | null): Response {
  return htmlResponse(
    layout(
      "Content unavailable",
      html`<p>This message's content is in the object store, which cannot be read right now. Try again later.</p>`,
      session,
    ),
    503,
  );
}

export function internalErrorPage(session: Session | null): Response {
  return htmlResponse(layout("Something went wrong", html`<p>The request failed. It has been logged; try again.</p>`, session), 500);
}
