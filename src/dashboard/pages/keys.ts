// API keys: list, create (the secret is shown on the response page once and never again), revoke.
// Options and validation mirror `npm run cli -- key create`.

import { createKey, type KeyRecord, listKeys, revokeKey } from "../../core/accounts/index.ts";
import { CoreError, errors } from "../../core/errors.ts";
import type { Scope } from "../../core/principal.ts";
import { errorText, statusOf } from "../../request/error-answers.ts";
import { doneUrl, flash } from "../flash.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { type Html, html, path, when } from "../html.ts";
import { csrfField, layout, type Notice } from "../layout.ts";
import { accountMailboxes, type MailboxRow } from "../queries.ts";
import { htmlResponse, redirect } from "../respond.ts";

const SCOPES: readonly Scope[] = ["bootstrap", "api", "mcp"];
const MAX_NAME = 200;
const MAX_ID = 100;

function keyRow(c: PageContext, key: KeyRecord, mailboxes: Map<string, string>): Html {
  const binding = key.mailbox_id ? (mailboxes.get(key.mailbox_id) ?? key.mailbox_id) : "account-wide";
  const action = key.revoked_at
    ? html`revoked ${when(key.revoked_at)}`
    : html`<form method="post" action="${path("keys", key.id, "revoke")}">${csrfField(c.session)}<button type="submit" class="danger">Revoke</button></form>`;
  return html`<tr${key.revoked_at ? html` class="revoked"` : ""}>
<td>${key.name ?? "—"}</td><td><code>${key.key_hint}…</code></td><td>${key.scope}</td><td>${binding}</td>
<td>${key.can_read ? "yes" : "no"}</td><td>${key.can_send ? "yes" : "no"}</td><td>${when(key.created_at)}</td><td>${action}</td></tr>`;
}

function createForm(c: PageContext, mailboxes: MailboxRow[]): Html {
  return html`<form method="post" action="/dashboard/keys" class="card">
<h2>Create a key</h2>
${csrfField(c.session)}
<label>Name <input name="name" maxlength="${MAX_NAME}" placeholder="optional"></label>
<label>Scope <select name="scope" required>
<option value="api">api: send, read and drafts</option>
<option value="mcp">mcp: the same, for an MCP client</option>
<option value="bootstrap">bootstrap: may only create mailboxes</option>
</select></label>
<label>Mailbox <select name="mailbox_id"><option value="">account-wide</option>${mailboxes.map((m) => html`<option value="${m.id}">${m.address}</option>`)}</select></label>
<label class="check"><input type="checkbox" name="can_read" value="on" checked> can read</label>
<label class="check"><input type="checkbox" name="can_send" value="on" checked> can send</label>
<button type="submit">Create key</button>
</form>`;
}

async function render(
  c: PageContext,
  extra: { created?: { key: KeyRecord; secret: string }; notice?: Notice | null; status?: number } = {},
) {
  const [keys, mailboxes] = await Promise.all([listKeys(c.svc.sql, c.session), accountMailboxes(c.svc.sql, c.session.accountId)]);
  const addresses = new Map(mailboxes.map((m) => [m.id, m.address]));
  const created = extra.created
    ? html`<section class="card secret" id="new-key">
<h2>New key: copy it now</h2>
<p>This is the only time the secret is shown. It is stored only as a hash.</p>
<p><code class="secret-value">${extra.created.secret}</code></p>
</section>`
    : html``;
  const body = html`${created}
<table><thead><tr><th>Name</th><th>Key</th><th>Scope</th><th>Mailbox</th><th>Read</th><th>Send</th><th>Created</th><th></th></tr></thead>
<tbody>${keys.length ? keys.map((k) => keyRow(c, k, addresses)) : html`<tr><td colspan="8">No keys yet.</td></tr>`}</tbody></table>
${createForm(c, mailboxes)}`;
  return htmlResponse(layout("API keys", body, c.session, extra.notice ?? flash(c.url)), extra.status ?? 200);
}

export const keysPage = {
  show: (c: PageContext) => render(c),

  async create(c: ActionContext): Promise<Response> {
    const scope = c.form.text("scope", 20);
    const mailboxId = c.form.text("mailbox_id", MAX_ID);
    const name = c.form.text("name", MAX_NAME);
    if (!scope || !(SCOPES as readonly string[]).includes(scope))
      return render(c, { notice: { kind: "error", text: `Scope must be one of ${SCOPES.join(", ")}.` }, status: 400 });
    if (mailboxId === null || name === null)
      return render(c, { notice: { kind: "error", text: `Name is at most ${MAX_NAME} characters.` }, status: 400 });
    try {
      const created = await createKey(c.svc.sql, {
        accountId: c.session.accountId,
        scope: scope as Scope,
        mailboxId: mailboxId || null,
        canRead: c.form.text("can_read", 10) === "on",
        canSend: c.form.text("can_send", 10) === "on",
        name: name || null,
      });
      Object.assign(c.audit, { key_id: created.key.id, scope, mailbox_id: created.key.mailbox_id });
      return render(c, { created, notice: { kind: "ok", text: "Key created." }, status: 201 });
    } catch (error) {
      if (error instanceof CoreError && statusOf(error) === 400)
        return render(c, { notice: { kind: "error", text: errorText(error) }, status: 400 });
      throw error;
    }
  },

  async revoke(c: ActionContext): Promise<Response> {
    const id = c.params.id ?? "";
    const revoked = await revokeKey(c.svc.sql, c.session, id);
    if (revoked === null) throw errors.routeNotFound();
    c.audit.already_revoked = !revoked;
    return redirect(doneUrl("/dashboard/keys", revoked ? "key_revoked" : "key_already_revoked"));
  },
};
