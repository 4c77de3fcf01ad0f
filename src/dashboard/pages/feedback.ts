// Corrections: the buttons on a message's page that correct its verdicts (giveFeedback, as the API
// and MCP tool do, with the signed-in user as the actor), undo, and the Corrections page listing
// the account's corrections with what its spam statistics have learned. Forms post behind the CSRF
// guard like every dashboard action; the message must be one the user's account can read.

import type { MessageDetail } from "../../core/messages.ts";
import {
  AXIS_OF,
  accountCorrections,
  FEEDBACK_VERDICTS,
  type FeedbackAxis,
  type FeedbackVerdict,
  feedbackOfMessage,
  giveFeedback,
  undoFeedback,
} from "../../core/screening/index.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { type Html, html, path, reveal, when } from "../html.ts";
import { csrfField, layout } from "../layout.ts";
import { dashboardPrincipal } from "../principal.ts";
import { htmlResponse, redirect } from "../respond.ts";

const LABELS: Record<FeedbackVerdict, string> = {
  spam: "Spam",
  not_spam: "Not spam",
  injection: "Prompt injection",
  safe: "Safe (no injection)",
  fraud: "Fraud",
  genuine: "Genuine sender",
};
const AXES: FeedbackAxis[] = ["spam", "injection", "fraud"];

/** The Corrections section of a message's page: standing and undone corrections, and the buttons. */
export async function correctionsSection(c: PageContext, m: MessageDetail): Promise<Html> {
  if (m.direction !== "in") return html`<p class="hint">Outbound mail has no verdicts to correct.</p>`;
  const rows = await feedbackOfMessage(c.svc.sql, c.session, m.id);
  const standing = new Map(rows.filter((r) => !r.undone_at).map((r) => [r.axis, r]));
  const buttons = AXES.map((axis) => {
    const current = standing.get(axis);
    const choices = FEEDBACK_VERDICTS.filter((v) => AXIS_OF[v] === axis);
    return html`<div class="correction"><strong>${axis}</strong>: ${current ? html`<span class="badge ok">${LABELS[current.verdict]}</span>` : html`<span class="hint">no correction</span>`}
${choices
  .filter((v) => v !== current?.verdict)
  .map(
    (v) =>
      html`<form method="post" action="${path("mail", m.id, "feedback")}" class="inline">${csrfField(c.session)}<input type="hidden" name="verdict" value="${v}"><button type="submit">Mark ${LABELS[v].toLowerCase()}</button></form>`,
  )}
${current ? html`<form method="post" action="${path("mail", m.id, "feedback", "undo")}" class="inline">${csrfField(c.session)}<input type="hidden" name="axis" value="${axis}"><button type="submit" class="danger">Undo</button></form>` : html``}</div>`;
  });
  const history = rows.length
    ? html`<table class="compact"><thead><tr><th>Verdict</th><th>By</th><th>Learned</th><th>Given</th><th>Undone</th></tr></thead><tbody>${rows.map(
        (r) =>
          html`<tr><td>${LABELS[r.verdict]}</td><td>${r.source}</td><td>${r.trained ? `counted as ${r.trained} by this account's filter` : "recorded"}</td><td>${when(r.created_at)}</td><td>${r.undone_at ? when(r.undone_at) : "—"}</td></tr>`,
      )}</tbody></table>`
    : html``;
  return html`<p class="hint">Correct a verdict: spam and not-spam corrections teach this account's spam filter (its later mail only; other accounts are unaffected).
Fraud marks the sender's later mail high risk; genuine makes the sender a known correspondent. The message's own verdicts stay as screened. Undo removes what a correction taught.
<a href="/dashboard/corrections">All corrections</a></p>
${buttons}${history}`;
}

function messageIdOf(c: ActionContext): string {
  return c.params.id ?? "";
}

export const feedbackActions = {
  async give(c: ActionContext): Promise<Response> {
    const verdict = c.form.text("verdict", 20) ?? "";
    if (!(FEEDBACK_VERDICTS as readonly string[]).includes(verdict)) return redirect(path("mail", messageIdOf(c)));
    const principal = await dashboardPrincipal(c.svc.sql, c.session);
    // giveFeedback's 404 becomes the one not-found page (guard), as for GET /mail/:id.
    await giveFeedback(c.svc.sql, principal, messageIdOf(c), verdict as FeedbackVerdict, { source: "dashboard", actor: c.session.userId });
    return redirect(`${path("mail", messageIdOf(c))}#corrections`);
  },
  async undo(c: ActionContext): Promise<Response> {
    const axis = c.form.text("axis", 20) ?? "";
    const principal = await dashboardPrincipal(c.svc.sql, c.session);
    await undoFeedback(
      c.svc.sql,
      principal,
      messageIdOf(c),
      (AXES as string[]).includes(axis) ? (axis as FeedbackAxis) : null,
      c.session.userId,
    );
    const back = c.form.text("back", 40) === "corrections" ? "/dashboard/corrections" : `${path("mail", messageIdOf(c))}#corrections`;
    return redirect(back);
  },
};

export async function correctionsPage(c: PageContext): Promise<Response> {
  const { recent, spamMessages, hamMessages, tokens } = await accountCorrections(c.svc.sql, c.session);
  const rows = recent.map(
    (r) =>
      html`<tr><td>${when(r.created_at)}</td><td><a href="${path("mail", r.message_id)}">${r.subject ? reveal(r.subject) : "(no subject)"}</a><br><small>${reveal(r.from_addr ?? "")}</small></td>
<td>${LABELS[r.verdict]}</td><td>${r.source}</td><td>${r.trained ? `counted as ${r.trained}` : "recorded"}</td>
<td>${r.undone_at ? html`undone ${when(r.undone_at)}` : html`<form method="post" action="${path("mail", r.message_id, "feedback", "undo")}">${csrfField(c.session)}<input type="hidden" name="axis" value="${r.axis}"><input type="hidden" name="back" value="corrections"><button type="submit" class="danger">Undo</button></form>`}</td></tr>`,
  );
  const body = html`<p class="hint">Corrections people and agents gave on this account's mail. This account's spam filter has learned from
<strong>${spamMessages}</strong> spam and <strong>${hamMessages}</strong> not-spam correction${hamMessages === 1 ? "" : "s"} (${tokens} distinct tokens).
It applies them on top of the global model when screening this account's later mail; each message's screening shows the global score and the adjusted one.
No sender can train it: only corrections given here, through the API or the MCP tool count.</p>
<table><thead><tr><th>Given</th><th>Message</th><th>Verdict</th><th>By</th><th>Effect</th><th></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">No corrections yet. Correct a verdict from a message's page.</td></tr>`}</tbody></table>`;
  return htmlResponse(layout("Corrections", body, c.session));
}
