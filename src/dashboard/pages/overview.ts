// The landing page after sign-in: what needs a human's attention, and where to go for it.
import type { PageContext } from "../guard.ts";
import { html } from "../html.ts";
import { layout } from "../layout.ts";
import { overviewCounts } from "../queries.ts";
import { htmlResponse } from "../respond.ts";

export async function overviewPage(c: PageContext): Promise<Response> {
  const counts = await overviewCounts(c.svc.sql, c.session.accountId);
  const body = html`<p>Account <code>${c.session.accountId}</code>, signed in as ${c.session.email}.</p>
<ul class="overview">
<li><a href="/dashboard/mail">Mail</a>: what the agents received and sent, and what screening decided about each message</li>
<li><a href="/dashboard/activity">Activity</a>: the last 30 days in charts</li>
<li><a href="/dashboard/approvals">Drafts waiting for approval</a>: <strong>${counts.pending_drafts}</strong></li>
<li><a href="/dashboard/webhook?state=dead">Dead-lettered webhook deliveries</a>: <strong>${counts.dead_deliveries}</strong></li>
<li><a href="/dashboard/keys">Active API keys</a>: <strong>${counts.active_keys}</strong></li>
<li><a href="/dashboard/mailboxes">Mailboxes</a>: <strong>${counts.mailboxes}</strong></li>
<li><a href="/dashboard/sendlists">Send allow and block lists</a></li>
</ul>`;
  return htmlResponse(layout("Overview", body, c.session));
}
