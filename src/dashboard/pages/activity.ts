// Activity: the last 30 days at a glance, for the account or one mailbox. Inbound mail by what
// screening decided, sends by how they ended, webhook deliveries by outcome with the p95 latency
// of their attempts, and this month's send quota. Charts are SVG drawn here; each has its table.
import {
  activityDays,
  type DayCount,
  inboundByOutcome,
  quotaThisMonth,
  sendsByOutcome,
  totalsByMailbox,
  webhookLatency,
  webhooksByOutcome,
} from "../activity-queries.ts";
import { askedMailboxId } from "../form.ts";
import type { PageContext } from "../guard.ts";
import { type Html, html } from "../html.ts";
import { layout } from "../layout.ts";
import { accountMailboxes } from "../queries.ts";
import { htmlResponse } from "../respond.ts";
import { chartTable, lineChart, type Series, stackedBars } from "../svg-chart.ts";
import { notFoundPage } from "./errors.ts";

const INBOUND = [
  ["clean", "#3a9a5b"],
  ["injection", "#e0a100"],
  ["spam", "#d9534f"],
  ["virus", "#7b1fa2"],
  ["screening", "#9aa4b1"],
] as const;
const SENDS = [
  ["sent", "#2f6bd0"],
  ["assumed sent", "#7fa7e6"],
  ["sending", "#9aa4b1"],
  ["retrying", "#e0a100"],
  ["in doubt", "#d9534f"],
  ["rejected by a human", "#5c3b00"],
] as const;
const WEBHOOKS = [
  ["delivered", "#3a9a5b"],
  ["pending", "#e0a100"],
  ["dead", "#d9534f"],
] as const;

function series(days: string[], rows: DayCount[], names: readonly (readonly [string, string])[]): Series[] {
  const index = new Map(days.map((d, i) => [d, i]));
  return names.map(([name, color]) => {
    const values = days.map(() => 0);
    for (const row of rows) if (row.outcome === name && index.has(row.day)) values[index.get(row.day)!] += row.n;
    return { name, color, values };
  });
}

function chart(id: string, title: string, days: string[], data: Series[]): Html {
  const total = data.reduce((sum, s) => sum + s.values.reduce((a, b) => a + b, 0), 0);
  return html`<figure class="chart" id="${id}"><figcaption>${title} <small>(${total} in 30 days)</small></figcaption>
${stackedBars(title, days, data)}
${chartTable(title, days, data)}</figure>`;
}

function quotaMeter(used: number, quota: number, month: string): Html {
  const share = quota > 0 ? Math.min(1, used / quota) : 1;
  const color = share >= 0.9 ? "#d9534f" : share >= 0.7 ? "#e0a100" : "#2f6bd0";
  return html`<figure class="chart" id="quota"><figcaption>Send quota, ${month} (UTC)</figcaption>
<svg viewBox="0 0 400 16" role="img" aria-label="${used} of ${quota} sends used" xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="none" class="meter-svg"><rect width="400" height="16" rx="4" fill="#e2e5ea"/><rect width="${(400 * share).toFixed(1)}" height="16" rx="4" fill="${color}"/></svg>
<p><strong>${used}</strong> of <strong>${quota}</strong> sends used (${quota > 0 ? Math.round((used / quota) * 100) : 100}%); ${Math.max(0, quota - used)} left this month.</p></figure>`;
}

export async function activityPage(c: PageContext): Promise<Response> {
  const db = c.svc.sql;
  const accountId = c.session.accountId;
  const mailboxes = await accountMailboxes(db, accountId);
  const asked = askedMailboxId(c.url);
  const mailbox = asked ? mailboxes.find((m) => m.id === asked) : null;
  if (asked && !mailbox) return notFoundPage(c.session);
  const mailboxId = mailbox?.id ?? null;
  const days = activityDays();
  const [inbound, sends, webhooks, latency, quota, totals] = await Promise.all([
    inboundByOutcome(db, accountId, mailboxId),
    sendsByOutcome(db, accountId, mailboxId),
    webhooksByOutcome(db, accountId, mailboxId),
    webhookLatency(db, accountId, mailboxId),
    quotaThisMonth(db, c.svc.config, accountId),
    mailboxId ? Promise.resolve([]) : totalsByMailbox(db, accountId),
  ]);
  const p95ByDay = new Map(latency.map((l) => [l.day, l.p95]));
  const attemptsByDay = new Map(latency.map((l) => [l.day, l.attempts]));
  const p95 = days.map((d) => p95ByDay.get(d) ?? null);

  const picker = html`<form method="get" action="/dashboard/activity" class="filters"><label>Mailbox <select name="mailbox_id">
<option value="">All mailboxes</option>${mailboxes.map((m) => html`<option value="${m.id}"${m.id === mailboxId ? html` selected` : html``}>${m.address}</option>`)}</select></label>
<button type="submit">Show</button></form>`;
  const perMailbox = totals.length
    ? html`<h2>By mailbox</h2><div class="scroll"><table class="compact" id="by-mailbox"><thead><tr><th>Mailbox</th><th>Inbound</th><th>Flagged</th><th>Sent</th></tr></thead>
<tbody>${totals.map((t) => html`<tr><td><a href="/dashboard/activity?mailbox_id=${encodeURIComponent(t.mailbox_id)}">${t.address}</a></td><td>${t.inbound}</td><td>${t.flagged}</td><td>${t.sent}</td></tr>`)}</tbody></table></div>`
    : html``;
  const body = html`<p class="hint">The last 30 days by UTC day, ${mailbox ? html`for <strong>${mailbox.address}</strong>` : "for every mailbox of the account"}. Hover a bar for its number, or open the table under each chart.</p>
${picker}
${quotaMeter(quota.used, quota.quota, quota.month)}
<div class="charts">
${chart("inbound", "Inbound mail by screening outcome", days, series(days, inbound, INBOUND))}
${chart("sends", "Sends by outcome", days, series(days, sends, SENDS))}
${chart("webhooks", "Webhook deliveries by outcome", days, series(days, webhooks, WEBHOOKS))}
<figure class="chart" id="latency"><figcaption>Webhook attempt latency, 95th percentile (ms)</figcaption>
${lineChart("Webhook p95 latency in milliseconds", days, p95, "#2f6bd0", "")}
${chartTable("Webhook p95 latency", days, [
  { name: "p95 (ms)", values: p95 },
  { name: "attempts", values: days.map((d) => attemptsByDay.get(d) ?? null) },
])}</figure>
</div>
${perMailbox}`;
  return htmlResponse(layout(mailbox ? `Activity · ${mailbox.address}` : "Activity", body, c.session));
}
