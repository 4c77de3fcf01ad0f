// Mail: one mailbox's messages, inbound and outbound, newest first, a page at a time. Each row
// says at a glance what screening and comprehension decided; the subject opens the message.
import type { PageContext } from "../guard.ts";
import { html, path, reveal, when, type Html } from "../html.ts";
import { layout } from "../layout.ts";
import { mailboxPage, type Direction, type MailRow } from "../mail-queries.ts";
import { accountMailboxes, type MailboxRow } from "../queries.ts";
import { htmlResponse } from "../respond.ts";
import { notFoundPage } from "./errors.ts";

export const MAIL_PAGE_SIZE = 25;
const MAX_ID = 100;

/** The short verdict a row shows: the worst of what screening found, else the classification. */
function verdictBadge(row: Pick<MailRow, "direction" | "status" | "classification" | "spam_risk" | "virus_risk" | "injection_risky">): Html {
  if (row.direction === "out") return html`<span class="badge sent">sent</span>`;
  if (row.virus_risk === "high") return html`<span class="badge bad">virus</span>`;
  if (row.spam_risk === "high") return html`<span class="badge bad">spam</span>`;
  if (row.injection_risky) return html`<span class="badge warn">injection risk</span>`;
  if (row.status === null) return html`<span class="badge">screening…</span>`;
  return html`<span class="badge ok">${row.classification ?? row.status}</span>`;
}

function directionOf(value: string | null): Direction {
  return value === "in" || value === "out" ? value : "all";
}

function mailUrl(mailboxId: string, direction: Direction, before: string | null = null): string {
  const query = new URLSearchParams({ mailbox: mailboxId });
  if (direction !== "all") query.set("direction", direction);
  if (before) query.set("before", before);
  return `/dashboard/mail?${query}`;
}

function row(m: MailRow): Html {
  const subject = m.subject ? reveal(m.subject) : html`(no subject)`;
  return html`<tr id="message-${m.id}">
<td>${when(m.created_at)}</td><td>${m.direction === "in" ? "in" : "out"}</td>
<td class="addr">${reveal(m.direction === "in" ? m.from_addr : m.to_addr)}</td>
<td><a href="${path("mail", m.id)}">${subject}</a>${m.attachments ? html` <small class="att">${m.attachments} attachment${m.attachments === 1 ? "" : "s"}</small>` : html``}</td>
<td>${verdictBadge(m)}</td></tr>`;
}

function mailboxPicker(mailboxes: MailboxRow[], current: MailboxRow, direction: Direction): Html {
  return html`<form method="get" action="/dashboard/mail" class="filters">
<label>Mailbox <select name="mailbox">${mailboxes.map((m) => html`<option value="${m.id}"${m.id === current.id ? html` selected` : html``}>${m.address}</option>`)}</select></label>
<label>Direction <select name="direction">${(["all", "in", "out"] as const).map((d) => html`<option value="${d}"${d === direction ? html` selected` : html``}>${d === "all" ? "inbound and outbound" : d === "in" ? "inbound" : "outbound"}</option>`)}</select></label>
<button type="submit">Show</button></form>`;
}

export async function mailPage(c: PageContext): Promise<Response> {
  const mailboxes = await accountMailboxes(c.svc.sql, c.session.accountId);
  if (mailboxes.length === 0) {
    return htmlResponse(layout("Mail", html`<p>No mailboxes yet. Agents create them with <code>POST /api/v1/mailboxes</code>.</p>`, c.session));
  }
  const asked = c.url.searchParams.get("mailbox");
  const mailbox = asked === null ? mailboxes[0]! : mailboxes.find((m) => m.id === asked);
  // Another account's mailbox id is the same page as one that never existed.
  if (!mailbox) return notFoundPage(c.session);
  const direction = directionOf(c.url.searchParams.get("direction"));
  const before = c.url.searchParams.get("before");
  const cursor = before && before.length <= MAX_ID ? before : null;
  const { rows, older } = await mailboxPage(c.svc.sql, c.session.accountId, mailbox.id, { direction, before: cursor, limit: MAIL_PAGE_SIZE });
  const paging = html`<p class="paging">${cursor ? html`<a href="${mailUrl(mailbox.id, direction)}">Newest</a>` : html``}
${older ? html`<a href="${mailUrl(mailbox.id, direction, older)}" rel="next">Older messages →</a>` : html``}</p>`;
  const body = html`${mailboxPicker(mailboxes, mailbox, direction)}
<div class="scroll"><table class="mail"><thead><tr><th>When</th><th>Dir.</th><th>From / to</th><th>Subject</th><th>Verdict</th></tr></thead>
<tbody>${rows.length ? rows.map(row) : html`<tr><td colspan="5">${cursor ? "No older messages." : "No messages in this mailbox yet."}</td></tr>`}</tbody></table></div>
${paging}`;
  return htmlResponse(layout(`Mail · ${mailbox.address}`, body, c.session));
}
