// Mailboxes: the account's mailboxes with their human-only settings: require_approval,
// deliver_spam, paused (each switched by its own button) and the review window.
import { CoreError, errors } from "../../core/errors.ts";
import { findMailbox, MAX_REVIEW_WINDOW_HOURS, updateMailboxSettings } from "../../core/mailboxes.ts";
import { errorText, statusOf } from "../../request/error-answers.ts";
import { doneUrl, flash } from "../flash.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { type Html, html, path, when } from "../html.ts";
import { csrfField, layout, type Notice } from "../layout.ts";
import { accountMailboxes, type MailboxRow } from "../queries.ts";
import { htmlResponse, redirect } from "../respond.ts";

type Setting = "require_approval" | "deliver_spam";

function toggle(c: PageContext, mailbox: MailboxRow, setting: Setting): Html {
  const on = mailbox[setting];
  return html`<form method="post" action="${path("mailboxes", mailbox.id, "settings")}" class="toggle">${csrfField(c.session)}
<input type="hidden" name="${setting}" value="${on ? "off" : "on"}">
<span class="${on ? "state on" : "state off"}">${on ? "on" : "off"}</span> <button type="submit">Turn ${on ? "off" : "on"}</button></form>`;
}

function pauseToggle(c: PageContext, mailbox: MailboxRow): Html {
  const paused = mailbox.paused_at !== null;
  const since = paused
    ? html` <small>since ${when(mailbox.paused_at)}${mailbox.paused_by ? html` by ${mailbox.paused_by}` : html``}</small>`
    : html``;
  return html`<form method="post" action="${path("mailboxes", mailbox.id, "settings")}" class="toggle">${csrfField(c.session)}
<input type="hidden" name="paused" value="${paused ? "off" : "on"}">
<span class="${paused ? "state paused" : "state off"}">${paused ? "paused" : "running"}</span>${since}
<button type="submit" class="${paused ? "" : "danger"}">${paused ? "Unpause" : "Pause"}</button></form>`;
}

function windowForm(c: PageContext, mailbox: MailboxRow): Html {
  return html`<form method="post" action="${path("mailboxes", mailbox.id, "settings")}" class="toggle window">${csrfField(c.session)}
<label><input type="number" name="review_window_hours" min="1" max="${MAX_REVIEW_WINDOW_HOURS}" step="1" value="${mailbox.review_window_hours}" required> hours</label>
<button type="submit">Save</button></form>`;
}

async function render(c: PageContext, notice?: Notice | null, status = 200): Promise<Response> {
  const mailboxes = await accountMailboxes(c.svc.sql, c.session.accountId);
  const rows = mailboxes.map(
    (
      m,
    ) => html`<tr id="mailbox-${m.id}"><td data-label="Address">${m.address}</td><td data-label="Name">${m.display_name ?? "—"}</td><td data-label="Created">${when(m.created_at)}</td>
<td class="setting-require_approval" data-label="Require approval">${toggle(c, m, "require_approval")}</td><td class="setting-deliver_spam" data-label="Deliver spam">${toggle(c, m, "deliver_spam")}</td>
<td class="setting-paused" data-label="Sending">${pauseToggle(c, m)}</td><td class="setting-review_window" data-label="Review window">${windowForm(c, m)}</td></tr>`,
  );
  const body = html`<p class="hint"><strong>Require approval</strong>: sends from the mailbox wait in the approval queue for a human.
<strong>Deliver spam</strong>: inbound mail flagged as spam is still pushed to the webhook (marked <code>skipped_spam</code>).
<strong>Pause</strong>: nothing the mailbox sends goes out; its sends and draft submissions wait in the approval queue (the agent is
told <code>202 pending_approval</code>, and sees <code>paused: true</code> in its mailbox list); inbound mail keeps arriving.
<strong>Review window</strong>: how long a draft waits for a human before it is rejected as expired.</p>
<div class="scroll"><table class="stack"><thead><tr><th>Address</th><th>Name</th><th>Created</th><th>Require approval</th><th>Deliver spam</th><th>Sending</th><th>Review window</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7">No mailboxes yet. Agents create them with <code>POST /api/v1/mailboxes</code>.</td></tr>`}</tbody></table></div>`;
  return htmlResponse(layout("Mailboxes", body, c.session, notice ?? flash(c.url)), status);
}

export const mailboxesPage = {
  show: (c: PageContext) => render(c),

  async update(c: ActionContext): Promise<Response> {
    const id = c.params.id ?? "";
    const value = (name: Setting | "paused"): boolean | undefined => {
      const raw = c.form.text(name, 3);
      return raw === "on" ? true : raw === "off" ? false : undefined;
    };
    const paused = value("paused");
    const hoursText = c.form.text("review_window_hours", 10);
    const settings = {
      requireApproval: value("require_approval"),
      deliverSpam: value("deliver_spam"),
      paused: paused === undefined ? undefined : paused ? { by: c.session.email } : (false as const),
      reviewWindowHours: hoursText ? (/^\d+$/.test(hoursText) ? Number(hoursText) : Number.NaN) : undefined,
    };
    if (Object.values(settings).every((v) => v === undefined)) {
      // Nothing to change, but another account's id is still the one 404.
      if (!(await findMailbox(c.svc.sql, c.session, id))) throw errors.routeNotFound();
      return redirect("/dashboard/mailboxes");
    }
    try {
      const mailbox = await updateMailboxSettings(c.svc.sql, c.session, id, settings);
      Object.assign(c.audit, {
        require_approval: mailbox.require_approval,
        deliver_spam: mailbox.deliver_spam,
        paused: mailbox.paused_at !== null,
        review_window_hours: mailbox.review_window_hours,
      });
    } catch (error) {
      if (!(error instanceof CoreError) || statusOf(error) !== 400) throw error;
      if (!(await findMailbox(c.svc.sql, c.session, id))) throw errors.routeNotFound();
      return render(c, { kind: "error", text: `Not changed: ${errorText(error)}.` }, 400);
    }
    return redirect(doneUrl("/dashboard/mailboxes", "mailbox_updated"));
  },
};
