// Mailboxes: the account's mailboxes with their human-only settings, require_approval and
// deliver_spam, each switched by its own button.
import { errors } from "../../core/errors.ts";
import { findMailbox, updateMailboxSettings } from "../../core/mailboxes.ts";
import { doneUrl, flash } from "../flash.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { html, path, when, type Html } from "../html.ts";
import { csrfField, layout } from "../layout.ts";
import { accountMailboxes, type MailboxRow } from "../queries.ts";
import { htmlResponse, redirect } from "../respond.ts";

type Setting = "require_approval" | "deliver_spam";

function toggle(c: PageContext, mailbox: MailboxRow, setting: Setting): Html {
  const on = mailbox[setting];
  return html`<form method="post" action="${path("mailboxes", mailbox.id, "settings")}" class="toggle">${csrfField(c.session)}
<input type="hidden" name="${setting}" value="${on ? "off" : "on"}">
<span class="${on ? "state on" : "state off"}">${on ? "on" : "off"}</span> <button type="submit">Turn ${on ? "off" : "on"}</button></form>`;
}

export const mailboxesPage = {
  async show(c: PageContext): Promise<Response> {
    const mailboxes = await accountMailboxes(c.svc.sql, c.session.accountId);
    const rows = mailboxes.map(
      (m) => html`<tr id="mailbox-${m.id}"><td>${m.address}</td><td>${m.display_name ?? "—"}</td><td>${when(m.created_at)}</td>
<td class="setting-require_approval">${toggle(c, m, "require_approval")}</td><td class="setting-deliver_spam">${toggle(c, m, "deliver_spam")}</td></tr>`,
    );
    const body = html`<p class="hint"><strong>Require approval</strong>: sends from the mailbox wait in the approval queue for a human.
<strong>Deliver spam</strong>: inbound mail flagged as spam is still pushed to the webhook (marked <code>skipped_spam</code>).</p>
<table><thead><tr><th>Address</th><th>Name</th><th>Created</th><th>Require approval</th><th>Deliver spam</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">No mailboxes yet. Agents create them with <code>POST /api/v1/mailboxes</code>.</td></tr>`}</tbody></table>`;
    return htmlResponse(layout("Mailboxes", body, c.session, flash(c.url)));
  },

  async update(c: ActionContext): Promise<Response> {
    const id = c.params.id ?? "";
    const value = (name: Setting): boolean | undefined => {
      const raw = c.form.text(name, 3);
      return raw === "on" ? true : raw === "off" ? false : undefined;
    };
    const settings = { requireApproval: value("require_approval"), deliverSpam: value("deliver_spam") };
    if (settings.requireApproval === undefined && settings.deliverSpam === undefined) {
      // Nothing to change, but another account's id is still the one 404.
      if (!(await findMailbox(c.svc.sql, c.session.accountId, id))) throw errors.routeNotFound();
      return redirect("/dashboard/mailboxes");
    }
    const mailbox = await updateMailboxSettings(c.svc.sql, c.session.accountId, id, settings);
    Object.assign(c.audit, { require_approval: mailbox.require_approval, deliver_spam: mailbox.deliver_spam });
    return redirect(doneUrl("/dashboard/mailboxes", "mailbox_updated"));
  },
};
