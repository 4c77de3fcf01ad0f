// The approval queue: the account's pending drafts. Approve sends through the real send pipeline
// (approveDraft) and the page says what happened; reject tombstones the draft.

import { CoreError } from "../../core/errors.ts";
import {
  approveDraft,
  type Decider,
  isoOf,
  listScheduled,
  reasonText,
  rejectDraft,
  type ScheduledRow,
  type SendOutcome,
} from "../../core/outbound/index.ts";
import { answerOf, errorText, statusOf } from "../../request/error-answers.ts";
import { answerOfOutcome } from "../../request/send-answers.ts";
import { doneUrl, flash } from "../flash.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { type Html, html, path, reveal, when } from "../html.ts";
import { csrfField, layout, type Notice } from "../layout.ts";
import { accountMailboxes, type PendingDraftRow, pendingDrafts } from "../queries.ts";
import { htmlResponse, redirect } from "../respond.ts";

const PAGE_LIMIT = 50;

// One card per draft, not a table row: on a phone a six-column table squeezed the buttons into a
// letter a line. The whole text, never a preview: approving sends all of it, so all of it must be
// on screen (in a scrolling box), with invisible and direction-changing characters made visible.
function draftCard(c: PageContext, draft: PendingDraftRow, addresses: Map<string, string>): Html {
  const key = draft.key_name || draft.key_hint ? html`${draft.key_name ?? "unnamed key"} (${draft.key_hint ?? "?"}…)` : html`—`;
  // Said first, as in the reviewer email: the conversation holds mail that may have steered the agent.
  const warnings = [
    draft.risky_injection > 0
      ? html`<p class="notice error risk" role="alert">⚠ This answers a conversation holding ${draft.risky_injection} message(s) flagged as a prompt-injection risk: the agent may have been steered by it.</p>`
      : html``,
    draft.risky_sender > 0
      ? html`<p class="notice error risk">⚠ The conversation holds ${draft.risky_sender} message(s) from a high-risk sender (spam verdict high, or DMARC failed).</p>`
      : html``,
  ];
  return html`<article class="review" id="draft-${draft.id}">${warnings}
<dl class="review-facts">
<dt>From</dt><dd>${addresses.get(draft.mailbox_id) ?? draft.mailbox_id}</dd>
<dt>To</dt><dd>${draft.to === null ? "(no recipient)" : reveal(draft.to)}</dd>
<dt>Subject</dt><dd>${draft.subject ? reveal(draft.subject) : "(no subject)"}</dd>
<dt>Queued</dt><dd>${when(draft.created_at)}</dd>
<dt>Why held</dt><dd>${draft.held_reason ? reasonText(draft.held_reason) : "the mailbox requires approval"}</dd>
<dt>Expires</dt><dd>${draft.expires_at ? html`${when(draft.expires_at)} (then rejected as expired)` : "—"}</dd>
<dt>Key</dt><dd>${key}</dd>
</dl>
<pre class="preview">${reveal(draft.text)}</pre><small>${draft.text.length} characters</small>${attachmentList(draft)}
<div class="actions">
<form method="post" action="${path("approvals", draft.id, "approve")}">${csrfField(c.session)}<button type="submit">Approve and send</button></form>
<form method="post" action="${path("approvals", draft.id, "reject")}">${csrfField(c.session)}<button type="submit" class="danger">Reject</button></form>
</div></article>`;
}

/** Mail scheduled to go out later, soonest first: approved, waiting for approval, or needing none (a list: it fits a phone). */
function scheduledTable(rows: ScheduledRow[], addresses: Map<string, string>): Html {
  const state = (row: ScheduledRow) =>
    row.status === "pending_approval" ? "waiting for approval" : row.approved_at ? "approved" : "will be sent";
  const items = rows.map(
    (
      row,
    ) => html`<li id="scheduled-${row.id}"><strong>${isoOf(row.scheduled_at)}</strong>${row.schedule_time_zone ? html` (${row.schedule_time_zone})` : html``}
· ${state(row)}<br>${addresses.get(row.mailbox_id) ?? row.mailbox_id} → ${row.to === null ? "(no recipient)" : reveal(row.to)}:
${row.subject ? reveal(row.subject) : "(no subject)"}</li>`,
  );
  return html`<h2 id="scheduled">Scheduled</h2>
${rows.length ? html`<ul class="scheduled">${items}</ul>` : html`<p class="empty">Nothing is scheduled.</p>`}`;
}

/** Every file the draft sends, with the name, type and size a reviewer judges it by. */
function attachmentList(draft: PendingDraftRow): Html {
  if (draft.attachments.length === 0) return html``;
  return html`<ul class="attachments">${draft.attachments.map(
    (a) => html`<li><span class="attachment-name">${reveal(a.filename)}</span> <small>${a.content_type}, ${byteSize(a.size)}</small></li>`,
  )}</ul>`;
}

export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

async function render(c: PageContext, notice?: Notice | null, status = 200): Promise<Response> {
  const [{ drafts, total }, mailboxes, scheduled] = await Promise.all([
    pendingDrafts(c.svc.sql, c.session.accountId, PAGE_LIMIT),
    accountMailboxes(c.svc.sql, c.session.accountId),
    listScheduled(c.svc.sql, c.session),
  ]);
  const addresses = new Map(mailboxes.map((m) => [m.id, m.address]));
  const more =
    total > drafts.length
      ? html`<p class="hint">Showing the oldest ${drafts.length} of ${total} waiting drafts; the rest appear as these are decided.</p>`
      : html``;
  const body = html`<p class="hint">Mail from mailboxes that require approval waits here, and so does a reply the loop guard held (a reply to automatic mail such as an out-of-office, or a thread where the agent keeps answering it; its reason is shown). Approving sends it at once through the normal send pipeline
(send lists, suppressions, quota and delivery all apply). Highlighted <mark class="hidden-char">U+…</mark> markers stand for invisible characters in the draft.</p>
${more}
<div class="reviews">${drafts.length ? drafts.map((d) => draftCard(c, d, addresses)) : html`<p class="empty">Nothing is waiting for approval.</p>`}</div>
${scheduledTable(scheduled, addresses)}`;
  return htmlResponse(layout("Approvals", body, c.session, notice ?? flash(c.url)), status);
}

/** What the send pipeline ended in, in words, and the page status that goes with it. */
export function describeOutcome(outcome: SendOutcome): { notice: Notice; status: number } {
  switch (outcome.kind) {
    case "sent":
      return { notice: { kind: "ok", text: `Approved and sent (message ${outcome.messageId}).` }, status: 200 };
    case "scheduled":
      return { notice: { kind: "ok", text: `Approved; it will be sent at its scheduled time (${outcome.scheduledAt}).` }, status: 200 };
    case "refused":
      return {
        notice: { kind: "error", text: `Not sent: ${deliveryError(outcome)}. The draft went back to draft for the agent to fix.` },
        status: 400,
      };
    default:
      // Not delivered yet (a temporary failure or an unknown outcome): the service retries or reconciles it by itself.
      return {
        notice: {
          kind: "error",
          text: `Approved, but not delivered yet: ${deliveryError(outcome)}. The service will retry or reconcile it.`,
        },
        status: 202,
      };
  }
}

/** The API's wording of a failed delivery, as the agent reads it. */
function deliveryError(outcome: SendOutcome): string {
  return String(answerOfOutcome(outcome).body.error);
}

export function describeRefusal(error: CoreError): string {
  const body = answerOf(error).body;
  if (body.code === "send_blocked_by_list") {
    const why = body.reason === "block_match" ? "matches a block entry" : "matches no allow entry";
    return `Not sent: the recipient ${why} of the ${String(body.scope)} send list.`;
  }
  if (body.code === "approval_conflict") return "This draft is no longer waiting for approval (someone else acted on it).";
  return `Not sent: ${errorText(error)}.`;
}

// Core looks the draft up within the user's account: another account's draft is the one 404 page.
const decider = (c: ActionContext): Decider => ({ accountId: c.session.accountId, name: `dashboard:${c.session.userId}` });

export const approvalsPage = {
  show: (c: PageContext) => render(c),

  async approve(c: ActionContext): Promise<Response> {
    try {
      const result = await approveDraft(c.svc, decider(c), c.params.id ?? "");
      // The audit keeps the status the API would have answered.
      c.audit.delivery_status = answerOfOutcome(result).status;
      const { notice, status } = describeOutcome(result);
      return render(c, notice, status);
    } catch (error) {
      if (!(error instanceof CoreError) || statusOf(error) === 404 || statusOf(error) >= 500) throw error;
      const code = answerOf(error).body.code;
      c.audit.code = typeof code === "string" ? code : null;
      return render(c, { kind: "error", text: describeRefusal(error) }, statusOf(error));
    }
  },

  async reject(c: ActionContext): Promise<Response> {
    try {
      await rejectDraft(c.svc.sql, decider(c), c.params.id ?? "");
    } catch (error) {
      if (!(error instanceof CoreError) || statusOf(error) !== 409) throw error;
      return render(c, { kind: "error", text: describeRefusal(error) }, 409);
    }
    return redirect(doneUrl("/dashboard/approvals", "draft_rejected"));
  },
};
