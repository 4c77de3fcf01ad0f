// Send allow/block lists at account and mailbox scope: list, add, remove (as `npm run cli -- sendlist`).
import { CoreError, errors } from "../../core/errors.ts";
import { addSendListEntry, listSendListEntries, removeSendListEntry, type SendListEntry } from "../../core/outbound/index.ts";
import { errorText, statusOf } from "../../request/error-answers.ts";
import { doneUrl, flash } from "../flash.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { type Html, html, path, when } from "../html.ts";
import { csrfField, layout, type Notice } from "../layout.ts";
import { accountMailboxes } from "../queries.ts";
import { htmlResponse, redirect } from "../respond.ts";

const MAX_PATTERN = 320;
const MAX_ID = 100;

function entryRow(c: PageContext, entry: SendListEntry, addresses: Map<string, string>): Html {
  const scope = entry.mailbox_id ? `mailbox ${addresses.get(entry.mailbox_id) ?? entry.mailbox_id}` : "account";
  return html`<tr><td>${scope}</td><td>${entry.kind}</td><td><code>${entry.pattern}</code></td><td>${when(entry.created_at)}</td>
<td><form method="post" action="${path("sendlists", entry.id, "remove")}">${csrfField(c.session)}<button type="submit" class="danger">Remove</button></form></td></tr>`;
}

async function render(c: PageContext, notice?: Notice | null, status = 200): Promise<Response> {
  const [entries, mailboxes] = await Promise.all([
    listSendListEntries(c.svc.sql, c.session),
    accountMailboxes(c.svc.sql, c.session.accountId),
  ]);
  const addresses = new Map(mailboxes.map((m) => [m.id, m.address]));
  const body = html`<p class="hint">A block entry always refuses its recipients. Where a scope has allow entries, a recipient must match one of them.
An entry is an exact address or a whole domain.</p>
<table><thead><tr><th>Scope</th><th>Kind</th><th>Pattern</th><th>Added</th><th></th></tr></thead>
<tbody>${entries.length ? entries.map((e) => entryRow(c, e, addresses)) : html`<tr><td colspan="5">No entries: every recipient is allowed.</td></tr>`}</tbody></table>
<form method="post" action="/dashboard/sendlists" class="card">
<h2>Add an entry</h2>
${csrfField(c.session)}
<label>Scope <select name="mailbox_id"><option value="">whole account</option>${mailboxes.map((m) => html`<option value="${m.id}">mailbox ${m.address}</option>`)}</select></label>
<label>Kind <select name="kind"><option value="block">block</option><option value="allow">allow</option></select></label>
<label>Address or domain <input name="pattern" required maxlength="${MAX_PATTERN}" placeholder="someone@example.com or example.com"></label>
<button type="submit">Add entry</button>
</form>`;
  return htmlResponse(layout("Send lists", body, c.session, notice ?? flash(c.url)), status);
}

export const sendListsPage = {
  show: (c: PageContext) => render(c),

  async add(c: ActionContext): Promise<Response> {
    const kind = c.form.text("kind", 10);
    const pattern = c.form.text("pattern", MAX_PATTERN);
    const mailboxId = c.form.text("mailbox_id", MAX_ID);
    if (kind !== "allow" && kind !== "block") return render(c, { kind: "error", text: "Kind must be allow or block." }, 400);
    if (!pattern || mailboxId === null)
      return render(c, { kind: "error", text: `Give an address or a domain of at most ${MAX_PATTERN} characters.` }, 400);
    try {
      const entry = await addSendListEntry(c.svc.sql, { accountId: c.session.accountId, mailboxId: mailboxId || null, kind, pattern });
      Object.assign(c.audit, { entry_id: entry.id, kind, mailbox_id: entry.mailbox_id });
      return redirect(doneUrl("/dashboard/sendlists", "entry_added"));
    } catch (error) {
      if (error instanceof CoreError && statusOf(error) === 400) return render(c, { kind: "error", text: errorText(error) }, 400);
      throw error;
    }
  },

  async remove(c: ActionContext): Promise<Response> {
    const id = c.params.id ?? "";
    if (!(await removeSendListEntry(c.svc.sql, c.session, id))) throw errors.routeNotFound();
    return redirect(doneUrl("/dashboard/sendlists", "entry_removed"));
  },
};
