// People: the dashboard users of the account. Adding one creates the user with a generated
// password shown once, to hand over as an invitation (the service sends no mail of its own to
// humans); removing one ends their sessions. Changing one's own password checks the current one,
// keeps createUser's rule, and ends every other session. Below, the audit trail of actions.

import { changeOwnPassword, createUser, listPeople, MIN_PASSWORD_LENGTH, removePerson, setReviewer } from "../../core/accounts/index.ts";
import { CoreError } from "../../core/errors.ts";
import { errorText, statusOf } from "../../request/error-answers.ts";
import { base64url, randomBytes, sha256 } from "../../secrets.ts";
import { type AuditRow, auditTrail } from "../audit-trail.ts";
import { readCookie, SESSION_COOKIE } from "../cookies.ts";
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH, normalizeEmail } from "../credentials.ts";
import { doneUrl, flash } from "../flash.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { type Html, html, path, when } from "../html.ts";
import { csrfField, layout, type Notice } from "../layout.ts";
import { htmlResponse, redirect } from "../respond.ts";

const AUDIT_PAGE = 50;

function auditDetails(row: AuditRow): string {
  return Object.entries(row.details ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
}

function auditTable(c: PageContext, rows: AuditRow[], older: string | null): Html {
  const body = rows.map(
    (r) =>
      html`<tr><td>${when(r.created_at)}</td><td>${r.user_email ?? (r.action === "draft.expired" ? "review window (no one)" : "—")}</td><td><code>${r.action}</code></td><td><span class="badge ${r.outcome === "ok" ? "ok" : "warn"}">${r.outcome}</span></td><td data-label="On">${r.target_id ?? "—"}</td><td data-label="From">${r.client ?? "—"}</td><td><small>${auditDetails(r)}</small></td></tr>`,
  );
  const before = c.url.searchParams.get("before");
  return html`<div class="scroll"><table class="compact stack" id="audit"><thead><tr><th>When</th><th>Who</th><th>Action</th><th>Outcome</th><th>On</th><th>From</th><th>Details</th></tr></thead>
<tbody>${body.length ? body : html`<tr><td colspan="7">No actions recorded yet.</td></tr>`}</tbody></table></div>
<p class="paging">${before ? html`<a href="/dashboard/people#audit">Newest</a>` : html``}${older ? html`<a href="/dashboard/people?before=${older}#audit" rel="next">Older entries →</a>` : html``}</p>`;
}

async function render(
  c: PageContext,
  extra: { created?: { email: string; password: string }; notice?: Notice | null; status?: number } = {},
): Promise<Response> {
  const beforeText = c.url.searchParams.get("before");
  const before = beforeText && /^\d{1,18}$/.test(beforeText) ? Number(beforeText) : null;
  const [people, audit] = await Promise.all([
    listPeople(c.svc.sql, c.session),
    auditTrail(c.svc.sql, c.session.accountId, before, AUDIT_PAGE),
  ]);
  const created = extra.created
    ? html`<section class="card secret" id="new-person"><h2>${extra.created.email} can sign in now</h2>
<p>Give them this password over a channel you trust; it is shown only this once. They should change it under People after signing in.</p>
<p><code class="secret-value">${extra.created.password}</code></p></section>`
    : html``;
  const rows = people.map(
    (
      p,
    ) => html`<tr id="person-${p.id}"><td>${p.email}${p.id === c.session.userId ? html` <span class="badge">you</span>` : html``}</td><td data-label="Added">${when(p.created_at)}</td><td data-label="Sessions">${p.sessions}</td>
<td data-label="Approval emails" class="reviewer"><form method="post" action="${path("people", p.id, "reviews")}">${csrfField(c.session)}<input type="hidden" name="reviews" value="${p.reviews_drafts ? "off" : "on"}"><span class="${p.reviews_drafts ? "state on" : "state off"}">${p.reviews_drafts ? "on" : "off"}</span> <button type="submit">Turn ${p.reviews_drafts ? "off" : "on"}</button></form></td>
<td>${p.id === c.session.userId ? html`` : html`<form method="post" action="${path("people", p.id, "remove")}">${csrfField(c.session)}<button type="submit" class="danger">Remove</button></form>`}</td></tr>`,
  );
  const body = html`${created}
<div class="scroll"><table class="stack"><thead><tr><th>Email</th><th>Added</th><th>Sessions</th><th>Approval emails</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>
<form method="post" action="/dashboard/people" class="card narrow" id="add-person"><h2>Add a person</h2>${csrfField(c.session)}
<label>Email <input type="email" name="email" required maxlength="${MAX_EMAIL_LENGTH}" autocomplete="off"></label>
<button type="submit">Add and show a password</button></form>
<form method="post" action="/dashboard/people/password" class="card narrow" id="change-password"><h2>Change your password</h2>${csrfField(c.session)}
<label>Current password <input type="password" name="current" required maxlength="${MAX_PASSWORD_LENGTH}" autocomplete="current-password"></label>
<label>New password <input type="password" name="next" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" autocomplete="new-password"></label>
<label>New password again <input type="password" name="again" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" autocomplete="new-password"></label>
<button type="submit">Change password</button></form>
<h2>Audit trail</h2><p class="hint">Every dashboard action of this account, newest first, however it ended.</p>
${auditTable(c, audit.rows, audit.older)}`;
  return htmlResponse(layout("People", body, c.session, extra.notice ?? flash(c.url)), extra.status ?? 200);
}

export const peoplePage = {
  show: (c: PageContext) => render(c),

  async add(c: ActionContext): Promise<Response> {
    const email = normalizeEmail(c.form.text("email", MAX_EMAIL_LENGTH) ?? "");
    const password = base64url(randomBytes(18));
    try {
      const user = await createUser(c.svc.sql, { accountId: c.session.accountId, email, password });
      c.audit.target_id = user.id;
      return render(c, { created: { email: user.email, password } });
    } catch (error) {
      if (!(error instanceof CoreError) || (statusOf(error) !== 400 && statusOf(error) !== 409)) throw error;
      return render(c, { notice: { kind: "error", text: `Not added: ${errorText(error)}.` }, status: statusOf(error) });
    }
  },

  /** Who is emailed when a draft waits for approval (everyone by default). */
  async reviews(c: ActionContext): Promise<Response> {
    const choice = c.form.text("reviews", 3);
    if (choice !== "on" && choice !== "off") return redirect("/dashboard/people");
    await setReviewer(c.svc.sql, c.session, c.params.id ?? "", choice === "on");
    c.audit.reviews_drafts = choice === "on";
    return redirect(doneUrl("/dashboard/people", "person_updated"));
  },

  async remove(c: ActionContext): Promise<Response> {
    try {
      await removePerson(c.svc.sql, c.session, c.session.userId, c.params.id ?? "");
    } catch (error) {
      if (!(error instanceof CoreError) || statusOf(error) !== 400) throw error;
      return render(c, { notice: { kind: "error", text: `Not removed: ${errorText(error)}.` }, status: 400 });
    }
    return redirect(doneUrl("/dashboard/people", "person_removed"));
  },

  async changePassword(c: ActionContext): Promise<Response> {
    const current = c.form.secret("current", MAX_PASSWORD_LENGTH);
    const next = c.form.secret("next", MAX_PASSWORD_LENGTH);
    const again = c.form.secret("again", MAX_PASSWORD_LENGTH);
    const refuse = (text: string, status = 400) => render(c, { notice: { kind: "error", text }, status });
    if (!current || !next)
      return refuse(`Enter your current password and a new one of ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`);
    if (next !== again) return refuse("The two new passwords differ.");
    const token = readCookie(c.request, SESSION_COOKIE);
    try {
      const outcome = await changeOwnPassword(c.svc.sql, {
        userId: c.session.userId,
        current,
        next,
        keepSessionHash: token ? await sha256(token) : null,
      });
      if (outcome === "wrong_current") {
        c.audit.reason = "wrong_current";
        return refuse("The current password is not right.", 403);
      }
    } catch (error) {
      if (!(error instanceof CoreError) || statusOf(error) !== 400) throw error;
      return refuse(`Not changed: ${errorText(error)}.`);
    }
    return redirect(doneUrl("/dashboard/people", "password_changed"));
  },
};
