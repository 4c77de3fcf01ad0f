// Mail: one mailbox's messages, inbound and outbound, newest first, a page at a time; or, when the
// form asks, core's search over that mailbox (ranked, with the matching passage). Each row says at
// a glance what screening and comprehension decided; the subject opens the message.

import { askedMailboxId } from "../form.ts";
import type { PageContext } from "../guard.ts";
import { type Html, html, path, reveal, when } from "../html.ts";
import { layout, type Notice } from "../layout.ts";
import { type Direction, type MailRow, mailboxPage } from "../mail-queries.ts";
import { isSearch, readSearch, runSearch, type SearchParams, searchQuery } from "../mail-search.ts";
import { accountMailboxes, type MailboxRow } from "../queries.ts";
import { htmlResponse } from "../respond.ts";
import { notFoundPage } from "./errors.ts";

export const MAIL_PAGE_SIZE = 25;
const MAX_ID = 100;

/** The short verdict a row shows: the worst of what screening found, else the classification. */
function verdictBadge(
  row: Pick<MailRow, "direction" | "status" | "classification" | "spam_risk" | "virus_risk" | "injection_risky">,
): Html {
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
  const query = new URLSearchParams({ mailbox_id: mailboxId });
  if (direction !== "all") query.set("direction", direction);
  if (before) query.set("before", before);
  return `/dashboard/mail?${query}`;
}

function row(m: MailRow, snippet: Html | null = null): Html {
  const subject = m.subject ? reveal(m.subject) : html`(no subject)`;
  return html`<tr id="message-${m.id}">
<td>${when(m.created_at)}</td><td>${m.direction === "in" ? "in" : "out"}</td>
<td class="addr">${reveal(m.direction === "in" ? m.from_addr : m.to_addr)}</td>
<td><a href="${path("mail", m.id)}">${subject}</a>${m.attachments ? html` <small class="att">${m.attachments} attachment${m.attachments === 1 ? "" : "s"}</small>` : html``}${snippet ? html`<div class="snippet">${snippet}</div>` : html``}</td>
<td>${verdictBadge(m)}</td></tr>`;
}

function option(value: string, label: string, current: string): Html {
  return html`<option value="${value}"${value === current ? html` selected` : html``}>${label}</option>`;
}

function mailboxPicker(mailboxes: MailboxRow[], current: MailboxRow, direction: Direction, search: SearchParams): Html {
  return html`<form method="get" action="/dashboard/mail" class="filters" role="search">
<label>Mailbox <select name="mailbox_id">${mailboxes.map((m) => option(m.id, m.address, current.id))}</select></label>
<label>Direction <select name="direction">${option("all", "inbound and outbound", direction)}${option("in", "inbound", direction)}${option("out", "outbound", direction)}</select></label>
<label class="grow">Search <input type="search" name="q" value="${search.q}" maxlength="500" placeholder='words, "a phrase", -not, word*'></label>
<label>From <input type="text" name="from" value="${search.from}" maxlength="320" placeholder="address or domain"></label>
<label>Attachment <select name="attachment">${option("", "any", search.attachment)}${option("yes", "with", search.attachment)}${option("no", "without", search.attachment)}</select></label>
<label>Since <input type="date" name="since" value="${search.since}"></label>
<label>Until <input type="date" name="until" value="${search.until}"></label>
<button type="submit">Show</button></form>`;
}

const HEAD = html`<div class="scroll"><table class="mail"><thead><tr><th>When</th><th>Dir.</th><th>From / to</th><th>Subject</th><th>Verdict</th></tr></thead>`;

/** The search's results in the list's table, with a link to the next page (core's cursor). */
async function searchBody(
  c: PageContext,
  mailbox: MailboxRow,
  direction: Direction,
  search: SearchParams,
): Promise<{ body: Html; notice: Notice | null; status: number }> {
  const outcome = await runSearch(c.svc.sql, c.session, mailbox.id, direction, search, MAIL_PAGE_SIZE);
  const clear = html`<a href="${mailUrl(mailbox.id, direction)}">Clear the search</a>`;
  if (!outcome.ok) return { body: html`<p class="paging">${clear}</p>`, notice: { kind: "error", text: outcome.error }, status: 400 };
  const first = `/dashboard/mail?${searchQuery(mailbox.id, direction, search)}`;
  const paging = html`<p class="paging">${clear}${search.cursor ? html`<a href="${first}">First results</a>` : html``}
${outcome.next ? html`<a href="${`/dashboard/mail?${searchQuery(mailbox.id, direction, search, outcome.next)}`}" rel="next">More results →</a>` : html``}</p>`;
  const empty = search.cursor ? "No more results." : "No messages match.";
  const body = html`<p class="hint">${outcome.ranked ? "Best matches first (subject and sender count most), then newest." : "Newest first."}</p>
${HEAD}<tbody>${outcome.hits.length ? outcome.hits.map((hit) => row(hit.row, hit.snippet)) : html`<tr><td colspan="5">${empty}</td></tr>`}</tbody></table></div>
${paging}`;
  return { body, notice: null, status: 200 };
}

export async function mailPage(c: PageContext): Promise<Response> {
  const mailboxes = await accountMailboxes(c.svc.sql, c.session.accountId);
  if (mailboxes.length === 0) {
    return htmlResponse(
      layout("Mail", html`<p>No mailboxes yet. Agents create them with <code>POST /api/v1/mailboxes</code>.</p>`, c.session),
    );
  }
  const asked = askedMailboxId(c.url);
  const mailbox = asked === null ? mailboxes[0]! : mailboxes.find((m) => m.id === asked);
  // Another account's mailbox id is the same page as one that never existed.
  if (!mailbox) return notFoundPage(c.session);
  const direction = directionOf(c.url.searchParams.get("direction"));
  const search = readSearch(c.url);
  const title = `Mail · ${mailbox.address}`;
  if (isSearch(search)) {
    const result = await searchBody(c, mailbox, direction, search);
    return htmlResponse(
      layout(title, html`${mailboxPicker(mailboxes, mailbox, direction, search)}${result.body}`, c.session, result.notice),
      result.status,
    );
  }
  const before = c.url.searchParams.get("before");
  const cursor = before && before.length <= MAX_ID ? before : null;
  const { rows, older } = await mailboxPage(c.svc.sql, c.session.accountId, mailbox.id, {
    direction,
    before: cursor,
    limit: MAIL_PAGE_SIZE,
  });
  const paging = html`<p class="paging">${cursor ? html`<a href="${mailUrl(mailbox.id, direction)}">Newest</a>` : html``}
${older ? html`<a href="${mailUrl(mailbox.id, direction, older)}" rel="next">Older messages →</a>` : html``}</p>`;
  const body = html`${mailboxPicker(mailboxes, mailbox, direction, search)}
${HEAD}<tbody>${rows.length ? rows.map((m) => row(m)) : html`<tr><td colspan="5">${cursor ? "No older messages." : "No messages in this mailbox yet."}</td></tr>`}</tbody></table></div>
${paging}`;
  return htmlResponse(layout(title, body, c.session));
}
