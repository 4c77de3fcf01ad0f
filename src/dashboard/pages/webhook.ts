// The account's webhook: its URL, state and secret hint; set a URL (a generated secret, shown
// once); disable; the deliveries, dead-lettered first or alone, each with its attempts and a
// Redrive button for dead letters.
import { CoreError } from "../../core/errors.ts";
import { LIFECYCLE_EVENT_TYPES } from "../../core/events/index.ts";
import {
  type DeliverySummary,
  disableWebhook,
  listAttempts,
  listDeliveries,
  MAX_WEBHOOK_URL_LENGTH,
  redriveDelivery,
  setWebhook,
  setWebhookEventTypes,
  showWebhook,
} from "../../core/webhooks/index.ts";
import { errorText, statusOf } from "../../request/error-answers.ts";
import { doneUrl, flash } from "../flash.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { type Html, html, path, when } from "../html.ts";
import { csrfField, layout, type Notice } from "../layout.ts";
import { accountDelivery } from "../queries.ts";
import { htmlResponse, redirect } from "../respond.ts";

const LIST_LIMIT = 200;

/** What each optional type tells the receiver, beside its checkbox. */
const TYPE_HINTS: Record<(typeof LIFECYCLE_EVENT_TYPES)[number], string> = {
  "message.sent": "our transport accepted a message for delivery",
  "message.delivered": "the recipient's own server answered 250 (direct MX delivery)",
  "message.send_failed": "a send failed (permanently, or temporarily with a retry coming)",
  "message.bounced": "a bounce report for one of our messages arrived later",
  "message.complained": "the recipient marked one of our messages as spam (ARF report)",
  "draft.pending_approval": "a draft waits for a human (the approval setting, or the loop guard's reason)",
  "draft.approved": "a human approved a draft; it is being sent",
  "draft.rejected": "a draft was rejected (by a human, or by review expiry)",
  "draft.scheduled": "a draft was scheduled to be sent later",
  "draft.unscheduled": "a draft's schedule was taken away",
};

function eventTypesForm(c: PageContext, chosen: string[]): Html {
  const boxes = LIFECYCLE_EVENT_TYPES.map(
    (type) =>
      html`<label><input type="checkbox" name="event_${type}"${chosen.includes(type) ? html` checked` : html``}> <code>${type}</code>: ${TYPE_HINTS[type]}</label>`,
  );
  return html`<form method="post" action="/dashboard/webhook/events" class="card" id="event-types">
<h2>Event types</h2>
${csrfField(c.session)}
<p class="hint"><code>message.received</code> is always sent. Choose what else this webhook receives (signed and retried the same way):</p>
${boxes}
<button type="submit">Save event types</button>
</form>`;
}

function redriveButton(c: PageContext, delivery: { id: string; state: string }): Html {
  if (delivery.state !== "dead") return html``;
  return html`<form method="post" action="${path("webhook", "deliveries", delivery.id, "redrive")}">${csrfField(c.session)}<button type="submit">Redrive</button></form>`;
}

function deliveryRow(c: PageContext, d: DeliverySummary): Html {
  return html`<tr id="delivery-${d.id}" class="state-${d.state}"><td><a href="${path("webhook", "deliveries", d.id)}"><code>${d.id}</code></a></td>
<td><code>${d.event_id}</code></td><td>${d.state}</td><td>${d.attempts}</td><td>${d.redrives}</td><td>${d.last_status ?? "—"}</td>
<td>${d.last_error ?? ""}</td><td>${when(d.created_at)}</td><td>${redriveButton(c, d)}</td></tr>`;
}

function deliveriesTable(c: PageContext, deliveries: DeliverySummary[]): Html {
  return html`<table><thead><tr><th>Delivery</th><th>Event</th><th>State</th><th>Attempts</th><th>Redrives</th><th>Last status</th><th>Last error</th><th>Created</th><th></th></tr></thead>
<tbody>${deliveries.length ? deliveries.map((d) => deliveryRow(c, d)) : html`<tr><td colspan="9">No deliveries.</td></tr>`}</tbody></table>`;
}

async function render(c: PageContext, extra: { secret?: string; notice?: Notice | null; status?: number } = {}): Promise<Response> {
  const { sql } = c.svc;
  const deadOnly = c.url.searchParams.get("state") === "dead";
  const [endpoint, deliveries] = await Promise.all([
    showWebhook(sql, c.session),
    listDeliveries(sql, c.session, { deadOnly, limit: LIST_LIMIT }),
  ]);
  // Dead letters first: they are the ones a human has to act on.
  const ordered = [...deliveries.filter((d) => d.state === "dead"), ...deliveries.filter((d) => d.state !== "dead")];
  const types = endpoint ? html`<dt>Event types</dt><dd>${endpoint.event_types.join(", ")}</dd>` : html``;
  const status = endpoint
    ? html`<dl class="card"><dt>URL</dt><dd><code>${endpoint.url}</code></dd><dt>State</dt><dd>${endpoint.enabled ? "enabled" : "disabled"}</dd>
<dt>Signing secret</dt><dd><code>${endpoint.secret_hint}</code></dd>${types}<dt>Updated</dt><dd>${when(endpoint.updated_at)}</dd></dl>`
    : html`<p>No webhook is configured: no events are sent.</p>`;
  const secret = extra.secret
    ? html`<section class="card secret" id="new-secret"><h2>Signing secret: copy it now</h2>
<p>Receivers verify <code>x-service-signature</code>, or <code>webhook-signature</code> with a Standard Webhooks library, with it. This is the only time it is shown.</p><p><code class="secret-value">${extra.secret}</code></p></section>`
    : html``;
  const disable = endpoint?.enabled
    ? html`<form method="post" action="/dashboard/webhook/disable">${csrfField(c.session)}<button type="submit" class="danger">Disable webhook</button></form>`
    : html``;
  const body = html`${secret}${status}
<form method="post" action="/dashboard/webhook" class="card">
<h2>${endpoint ? "Change the URL" : "Set a URL"}</h2>
${csrfField(c.session)}
<label>URL <input type="url" name="url" required maxlength="${MAX_WEBHOOK_URL_LENGTH}" placeholder="https://example.com/hooks/mail"></label>
<label>Signing secret (optional) <input type="password" name="secret" maxlength="256" autocomplete="off" placeholder="whsec_… (Standard Webhooks form)"></label>
<p class="hint">Left empty, a new signing secret is generated and shown once. A given secret of the form <code>whsec_</code> + base64 signs <code>webhook-signature</code> with its decoded bytes.</p>
<button type="submit">Save and enable</button>
</form>
${endpoint ? eventTypesForm(c, endpoint.event_types) : html``}
${disable}
<h2>Deliveries</h2>
<p class="filters"><a href="/dashboard/webhook">All (dead-lettered first)</a> · <a href="/dashboard/webhook?state=dead">Dead-lettered only</a></p>
${deliveriesTable(c, ordered)}`;
  return htmlResponse(layout("Webhook", body, c.session, extra.notice ?? flash(c.url)), extra.status ?? 200);
}

export const webhookPage = {
  show: (c: PageContext) => render(c),

  async set(c: ActionContext): Promise<Response> {
    const url = c.form.text("url", MAX_WEBHOOK_URL_LENGTH);
    if (!url)
      return render(c, { notice: { kind: "error", text: `Give a URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters.` }, status: 400 });
    try {
      const given = c.form.secret("secret", 256) || null;
      const { secret } = await setWebhook(c.svc, { accountId: c.session.accountId, url, secret: given });
      // A secret the human typed is not echoed back.
      return render(c, {
        secret: given ? undefined : secret,
        notice: { kind: "ok", text: given ? "Webhook saved and enabled with the given secret." : "Webhook saved and enabled." },
      });
    } catch (error) {
      if (!(error instanceof CoreError) || statusOf(error) !== 400) throw error;
      return render(c, { notice: { kind: "error", text: errorText(error) }, status: 400 });
    }
  },

  async events(c: ActionContext): Promise<Response> {
    const chosen = LIFECYCLE_EVENT_TYPES.filter((type) => c.form.has(`event_${type}`));
    const saved = await setWebhookEventTypes(c.svc.sql, c.session, chosen);
    c.audit.event_types = chosen.join(",");
    return redirect(doneUrl("/dashboard/webhook", saved ? "webhook_events_saved" : "webhook_not_configured"));
  },

  async disable(c: ActionContext): Promise<Response> {
    const disabled = await disableWebhook(c.svc.sql, c.session);
    c.audit.was_configured = disabled;
    return redirect(doneUrl("/dashboard/webhook", disabled ? "webhook_disabled" : "webhook_not_configured"));
  },

  async delivery(c: PageContext): Promise<Response> {
    const id = c.params.id ?? "";
    const summary = await accountDelivery(c.svc.sql, c.session.accountId, id);
    const attempts = await listAttempts(c.svc.sql, c.session, id);
    const rows = attempts.map(
      (
        a,
      ) => html`<tr><td>${when(a.attempted_at)}</td><td><code>${a.url}</code></td><td>${a.status ?? "—"}</td><td>${a.latency_ms ?? "—"}</td>
<td>${a.error ?? ""}</td><td><code>${a.response_snippet ?? ""}</code></td></tr>`,
    );
    const body = html`${deliveriesTable(c, [summary])}
<h2>Attempts</h2>
<table><thead><tr><th>At</th><th>URL</th><th>Status</th><th>Latency ms</th><th>Error</th><th>Response</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">No attempts yet.</td></tr>`}</tbody></table>
<p><a href="/dashboard/webhook">Back to the webhook</a></p>`;
    return htmlResponse(layout(`Delivery ${id}`, body, c.session, flash(c.url)));
  },

  async redrive(c: ActionContext): Promise<Response> {
    const id = c.params.id ?? "";
    try {
      await redriveDelivery(c.svc.sql, c.session, id);
    } catch (error) {
      if (!(error instanceof CoreError) || statusOf(error) !== 409) throw error;
      return render(c, { notice: { kind: "error", text: errorText(error) }, status: 409 });
    }
    return redirect(doneUrl("/dashboard/webhook", "redriven"));
  },
};
