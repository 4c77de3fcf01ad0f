// Domains: the account's custom domains, adding one (paid plan), the DNS records to publish as
// selectable text with each one's seen/missing state from the last check, verify, and the shared
// domain's DKIM record for self-hosters. Adding and verifying go through core (createDomain,
// verifyDomain), the same rules as the API.
import { createDomain, type DomainStatus, listDomains, verifyDomain } from "../../core/domains/index.ts";
import { CoreError, errors } from "../../core/errors.ts";
import type { DnsCheckResult, DnsRecord } from "../../mail/domain-records.ts";
import { errorText, statusOf } from "../../request/error-answers.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { type Html, html, path, when } from "../html.ts";
import { csrfField, layout, type Notice } from "../layout.ts";
import { dashboardPrincipal } from "../principal.ts";
import { htmlResponse, redirect } from "../respond.ts";

const MAX_DOMAIN = 253;

function statusBadge(status: DomainStatus): Html {
  const kind = status === "verified" ? "ok" : status === "failed" ? "bad" : "warn";
  return html`<span class="badge ${kind}">${status}</span>`;
}

/** A record as a DNS host asks for it: type, name and value, each selectable as one piece. */
function recordBlock(record: { type: string; name: string; value: string; priority?: number }, state: Html): Html {
  return html`<div class="record-block"><p><strong>${record.type}</strong> ${state}</p>
<label>Name <pre class="record">${record.name}</pre></label>
${record.priority !== undefined ? html`<label>Priority <pre class="record">${record.priority}</pre></label>` : html``}
<label>Value <pre class="record">${record.value}</pre></label></div>`;
}

async function sharedDkim(c: PageContext): Promise<Html> {
  const config = c.svc.config;
  const [key] = await c.svc.sql`select selector, public_key from service_dkim_keys where domain = ${config.sharedDomain}`;
  if (!key) {
    return html`<p class="hint">The shared domain <code>${config.sharedDomain}</code> has no DKIM key yet; one is made at the first send (<code>npm run cli -- dkim show</code> prints it).</p>`;
  }
  return html`<p class="hint">Mail from <code>${config.sharedDomain}</code> is signed with this key. Whoever runs this service publishes it in the shared domain's DNS.</p>
${recordBlock({ type: "TXT", name: `${key.selector}._domainkey.${config.sharedDomain}`, value: `v=DKIM1; k=rsa; p=${key.public_key}` }, html``)}`;
}

async function renderList(c: PageContext, notice: Notice | null = null, status = 200): Promise<Response> {
  const principal = await dashboardPrincipal(c.svc.sql, c.session);
  const domains = await listDomains(c.svc, principal);
  const rows = domains.map(
    (d) =>
      html`<tr id="domain-${d.id}"><td><a href="${path("domains", d.id)}">${d.name}</a></td><td>${statusBadge(d.status)}</td><td>${when(d.created_at)}</td></tr>`,
  );
  const form =
    principal.plan === "paid"
      ? html`<form method="post" action="/dashboard/domains" class="card narrow">${csrfField(c.session)}
<label>Domain name <input name="name" required maxlength="${MAX_DOMAIN}" placeholder="mail.example.com" autocomplete="off"></label>
<button type="submit">Add domain</button></form>`
      : html`<p class="card narrow">Custom domains need a paid plan. Mailboxes on <code>${c.svc.config.sharedDomain}</code> work on every plan.</p>`;
  const body = html`<div class="scroll"><table><thead><tr><th>Domain</th><th>Status</th><th>Added</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="3">No custom domains.</td></tr>`}</tbody></table></div>
<h2>Add a custom domain</h2>${form}
<h2>Shared domain DKIM</h2>${await sharedDkim(c)}`;
  return htmlResponse(layout("Domains", body, c.session, notice), status);
}

type DomainRow = {
  id: string;
  name: string;
  status: DomainStatus;
  records: DnsRecord[];
  last_check: DnsCheckResult | null;
  last_checked_at: string | null;
  created_at: string;
};

async function renderDomain(c: PageContext, notice: Notice | null = null): Promise<Response> {
  const [domain] = await c.svc.sql<DomainRow[]>`
    select id, name, status, records, last_check, last_checked_at, created_at from domains
    where id = ${c.params.id ?? ""} and account_id = ${c.session.accountId}`;
  if (!domain) throw errors.routeNotFound();
  const checks = domain.last_check?.checks ?? [];
  const stateOf = (record: DnsRecord): Html => {
    const check = checks.find((k) => k.purpose === record.purpose && k.name === record.name);
    if (!check) return html`<span class="badge">not checked yet</span>`;
    return check.found
      ? html`<span class="badge ok">seen</span>`
      : html`<span class="badge bad">missing</span> <small>${check.detail ?? ""}</small>`;
  };
  const title = (record: DnsRecord) => (record.purpose === "inbound" ? "Inbound (MX)" : record.purpose.toUpperCase());
  const glance = html`<div class="scroll"><table class="compact stack" id="records"><thead><tr><th>Record</th><th>Type</th><th>Name</th><th>State</th></tr></thead>
<tbody>${domain.records.map((r) => html`<tr><td><a href="#record-${r.purpose}">${title(r)}</a></td><td data-label="Type">${r.type}</td><td data-label="Name">${r.name}</td><td>${stateOf(r)}</td></tr>`)}</tbody></table></div>`;
  const blocks = domain.records.map(
    (record) =>
      html`<section class="card record-card" id="record-${record.purpose}"><h3>${title(record)}</h3>${recordBlock(record, stateOf(record))}</section>`,
  );
  const body = html`<p><a href="/dashboard/domains">← Domains</a></p>
<p>Status ${statusBadge(domain.status)} · added ${when(domain.created_at)} · last checked ${when(domain.last_checked_at)}</p>
<p class="hint">Publish these records at the domain's DNS host, then verify. Each value is selectable as a whole. A domain is verified when every record is seen; it fails after 72 hours pending, and a later verify can still succeed.</p>
<form method="post" action="${path("domains", domain.id, "verify")}">${csrfField(c.session)}<button type="submit">Verify now</button></form>
${glance}
${blocks}`;
  return htmlResponse(layout(`Domain ${domain.name}`, body, c.session, notice));
}

export const domainsPage = {
  show: (c: PageContext) => renderList(c),
  detail: (c: PageContext) => renderDomain(c),

  async add(c: ActionContext): Promise<Response> {
    const name = c.form.text("name", MAX_DOMAIN);
    if (!name) return renderList(c, { kind: "error", text: "Enter a domain name of at most 253 characters." }, 400);
    try {
      const created = await createDomain(c.svc, await dashboardPrincipal(c.svc.sql, c.session), name);
      c.audit.target_id = created.id;
      return redirect(path("domains", created.id));
    } catch (error) {
      if (!(error instanceof CoreError) || statusOf(error) >= 500 || statusOf(error) === 404) throw error;
      return renderList(c, { kind: "error", text: `Not added: ${errorText(error)}.` }, statusOf(error));
    }
  },

  async verify(c: ActionContext): Promise<Response> {
    try {
      const { status } = await verifyDomain(c.svc, await dashboardPrincipal(c.svc.sql, c.session), c.params.id ?? "");
      c.audit.status = status;
      const text =
        status === "verified"
          ? "Every record was seen: the domain is verified."
          : `Not every record was seen yet; the domain is ${status}.`;
      return renderDomain(c, { kind: status === "verified" ? "ok" : "error", text });
    } catch (error) {
      // Free plan: the same 404 page as a missing domain would tell nothing; say what it is.
      if (error instanceof CoreError && statusOf(error) === 403) return renderList(c, { kind: "error", text: `${errorText(error)}.` }, 403);
      throw error;
    }
  },
};
