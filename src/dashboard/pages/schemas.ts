// Extraction schemas: the account's JSON Schemas, creating one from pasted text or an uploaded
// file (validated by core's createExtractionSchema, as the CLI does, after the API's JSON size
// and nesting limits), and choosing which schema a mailbox's inbound mail is extracted with.
import { CoreError } from "../../core/errors.ts";
import { attachExtractionSchema, createExtractionSchema, listExtractionSchemas, MAX_SCHEMA_BYTES } from "../../core/schemas.ts";
import { MAX_JSON_DEPTH, nestingDepth } from "../../request/body-limits.ts";
import { errorText, statusOf } from "../../request/error-answers.ts";
import { doneUrl, flash } from "../flash.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { html, when } from "../html.ts";
import { csrfField, layout, type Notice } from "../layout.ts";
import { accountMailboxes } from "../queries.ts";
import { htmlResponse, redirect } from "../respond.ts";

const MAX_NAME = 200;
const MAX_ID = 100;
/** The schema itself, plus room for the name, the token and multipart framing. */
export const SCHEMA_FORM_BYTES = MAX_SCHEMA_BYTES + 8 * 1024;

const EXAMPLE = `{
  "type": "object",
  "properties": {
    "invoice_number": { "type": "string" },
    "amount": { "type": "number" },
    "due_date": { "type": "string" }
  },
  "required": ["invoice_number"]
}`;

async function render(
  c: PageContext,
  notice: Notice | null = null,
  status = 200,
  draft: { name: string; text: string } | null = null,
): Promise<Response> {
  const [schemas, mailboxes] = await Promise.all([
    listExtractionSchemas(c.svc.sql, c.session),
    accountMailboxes(c.svc.sql, c.session.accountId),
  ]);
  const rows = schemas.map((s) => {
    const properties = typeof s.schema.properties === "object" && s.schema.properties !== null ? Object.keys(s.schema.properties) : [];
    return html`<tr id="schema-${s.id}"><td><strong>${s.name}</strong><br><code>${s.id}</code></td><td data-label="Properties">${properties.join(", ") || "—"}</td>
<td data-label="Used by">${s.mailboxes.length ? s.mailboxes.join(", ") : "—"}</td><td data-label="Created">${when(s.created_at)}</td>
<td><details><summary>JSON</summary><pre class="json">${JSON.stringify(s.schema, null, 2)}</pre></details></td></tr>`;
  });
  const attach =
    mailboxes.length && schemas.length
      ? html`<form method="post" action="/dashboard/schemas/attach" class="card narrow" id="attach-schema"><h2>Use a schema for a mailbox</h2>${csrfField(c.session)}
<label>Mailbox <select name="mailbox_id">${mailboxes.map((m) => html`<option value="${m.id}">${m.address}</option>`)}</select></label>
<label>Schema <select name="schema_id"><option value="">none (built-in facts only)</option>${schemas.map((s) => html`<option value="${s.id}">${s.name}</option>`)}</select></label>
<button type="submit">Save</button></form>`
      : html``;
  const body = html`<p class="hint">A mailbox with a schema gets each inbound message's extraction filled in with the schema's properties (beside the built-in facts).</p>
<div class="scroll"><table class="stack"><thead><tr><th>Schema</th><th>Properties</th><th>Used by</th><th>Created</th><th></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">No extraction schemas yet.</td></tr>`}</tbody></table></div>
${attach}
<form method="post" action="/dashboard/schemas" enctype="multipart/form-data" class="card" id="create-schema"><h2>Create a schema</h2>${csrfField(c.session)}
<label>Name <input name="name" required maxlength="${MAX_NAME}" value="${draft?.name ?? ""}"></label>
<label>JSON Schema <textarea name="schema" rows="12" spellcheck="false" placeholder="${EXAMPLE}">${draft?.text ?? ""}</textarea></label>
<label>or a file <input type="file" name="schema_file" accept="application/json,.json"></label>
<button type="submit">Create schema</button></form>`;
  return htmlResponse(layout("Extraction schemas", body, c.session, notice ?? flash(c.url)), status);
}

export const schemasPage = {
  show: (c: PageContext) => render(c),

  async create(c: ActionContext): Promise<Response> {
    const name = c.form.text("name", MAX_NAME);
    const file = c.form.text("schema_file", MAX_SCHEMA_BYTES);
    const typed = c.form.text("schema", MAX_SCHEMA_BYTES);
    const text = file || typed;
    const refuse = (message: string, status = 400) =>
      render(c, { kind: "error", text: `Not created: ${message}.` }, status, { name: name ?? "", text: typed ?? "" });
    if (!name) return refuse(`a name of 1 to ${MAX_NAME} characters is required`);
    if (text === null) return refuse("extraction schema is too large");
    if (!text) return refuse("paste a JSON Schema or choose a file");
    if (nestingDepth(text) > MAX_JSON_DEPTH) return refuse(`the schema is nested deeper than ${MAX_JSON_DEPTH} levels`);
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch (error) {
      return refuse(`the text is not JSON (${(error as Error).message})`);
    }
    try {
      const created = await createExtractionSchema(c.svc.sql, { accountId: c.session.accountId, name, schema });
      c.audit.target_id = created.id;
    } catch (error) {
      if (!(error instanceof CoreError) || statusOf(error) !== 400) throw error;
      return refuse(errorText(error));
    }
    return redirect(doneUrl("/dashboard/schemas", "schema_created"));
  },

  async attach(c: ActionContext): Promise<Response> {
    const mailboxId = c.form.text("mailbox_id", MAX_ID) ?? "";
    const schemaId = c.form.text("schema_id", MAX_ID);
    await attachExtractionSchema(c.svc.sql, c.session, mailboxId, schemaId ? schemaId : null);
    Object.assign(c.audit, { target_id: mailboxId, schema_id: schemaId || null });
    return redirect(doneUrl("/dashboard/schemas", "schema_attached"));
  },
};
