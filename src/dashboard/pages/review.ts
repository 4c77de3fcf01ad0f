// The page a reviewer's email link opens, without signing in: the link's token is the credential.
// GET only shows: the whole message, the facts, and a form with two buttons (a link scanner that
// fetches the link changes nothing). Only the POST of that form acts; the token travels in the form
// body, never in the action URL, and the POST must come from our own origin. Every answer, and every
// attempt on a link that can no longer answer, goes into the account's audit trail with its address.
import { answerLink, decisionOf, type LinkState, linkState, type ReviewSubject, reviewFacts, utc } from "../../core/outbound/index.ts";
import type { Services } from "../../core/services.ts";
import { errorFields } from "../../log.ts";
import type { ClientAddressOf } from "../../request/client-address.ts";
import { answerOf } from "../../request/error-answers.ts";
import { answerOfOutcome } from "../../request/send-answers.ts";
import { logAction, outcomeOf } from "../audit.ts";
import { recordAction } from "../audit-trail.ts";
import { sameOrigin } from "../csrf.ts";
import { FormTooLarge, readForm } from "../form.ts";
import { type Html, html, reveal } from "../html.ts";
import { layout, type Notice } from "../layout.ts";
import { htmlResponse } from "../respond.ts";
import { describeOutcome, describeRefusal } from "./approvals.ts";
import { forbiddenPage, notFoundPage, tooLargePage } from "./errors.ts";

function messageView(s: ReviewSubject): Html {
  const warnings = s.warnings.map((w) => html`<p class="notice error risk" role="alert">⚠ ${w}</p>`);
  return html`${warnings}
<dl class="facts">${reviewFacts(s).map(([label, value]) => html`<dt>${label}</dt><dd>${reveal(value)}</dd>`)}</dl>
<h2>The whole text, as it would be sent</h2>
<pre class="message-text">${reveal(s.draft.text)}</pre>`;
}

function confirmPage(s: ReviewSubject, token: string, reviewer: string, intent: string | null): Response {
  const chosen =
    intent === "approve" || intent === "reject"
      ? html`<p class="hint">You chose <strong>${intent}</strong> in the email. Nothing has happened yet: confirm below.</p>`
      : html``;
  const body = html`<p class="hint">For ${reviewer}. This link works once; the email cannot be edited here (reject it and ask the agent
for a corrected one).</p>
${messageView(s)}
${chosen}
<form method="post" action="/dashboard/review" class="decide">
<input type="hidden" name="token" value="${token}">
<button type="submit" name="decision" value="approve">Approve and send</button>
<button type="submit" name="decision" value="reject" class="danger">Reject</button>
</form>
<p class="hint"><a href="/dashboard/approvals">Open the approval queue</a> (sign-in needed).</p>`;
  return htmlResponse(layout("Review an email", body, null));
}

const WHY: Record<Exclude<LinkState, { kind: "open" | "unknown" }>["why"], string> = {
  used: "This link was already used.",
  decided: "This email was already decided.",
  expired: "This review expired before anyone decided.",
  changed: "The draft changed after this link was sent, so the link no longer answers for it.",
};

async function closedPage(svc: Services, state: Exclude<LinkState, { kind: "open" | "unknown" }>, status: number): Promise<Response> {
  const decision = await decisionOf(svc.sql, state.subject);
  const who = decision?.who ? html` by <strong>${decision.who}</strong>` : html``;
  const at = decision?.when ? html` at ${utc(decision.when)}` : html``;
  const body = html`<p class="notice error" role="alert">${WHY[state.why]} Nothing was done now.</p>
<p id="what-happened">The email was <strong>${decision?.what ?? "decided"}</strong>${who}${at}.</p>
${messageView(state.subject)}
<p class="hint"><a href="/dashboard/approvals">Open the approval queue</a> (sign-in needed).</p>`;
  return htmlResponse(layout("Already answered", body, null), status);
}

function resultPage(s: ReviewSubject, notice: Notice, status: number): Response {
  const body = html`${messageView(s)}<p class="hint"><a href="/dashboard/approvals">Open the approval queue</a> (sign-in needed).</p>`;
  return htmlResponse(layout("Review answered", body, null, notice), status);
}

export function makeReviewPages(svc: Services, clientAddressOf: ClientAddressOf) {
  async function audit(
    state: { subject: ReviewSubject; reviewer: { id: string; email: string } },
    action: string,
    status: number,
    fields: Record<string, string | number | null>,
    request: Request,
  ): Promise<void> {
    const session = { accountId: state.subject.review.account_id, userId: state.reviewer.id, email: state.reviewer.email };
    const details = { target_id: state.subject.draft.id, via: "email_link", status, ...fields };
    const client = clientAddressOf(request);
    logAction(svc.log, session, action, outcomeOf(status), { ...details, client });
    await recordAction(svc.sql, session, action, outcomeOf(status), details, client).catch((error) =>
      svc.log.error("dashboard.audit_write_failed", { action, ...errorFields(error) }),
    );
  }

  return {
    async show(request: Request, token: string): Promise<Response> {
      const state = await linkState(svc.sql, token);
      if (state.kind === "unknown") return notFoundPage(null);
      if (state.kind === "closed") return closedPage(svc, state, 200);
      return confirmPage(state.subject, token, state.reviewer.email, new URL(request.url).searchParams.get("intent"));
    },

    async answer(request: Request): Promise<Response> {
      if (!sameOrigin(request, svc.config)) return forbiddenPage(null);
      let token: string | null;
      let decision: string | null;
      try {
        const form = await readForm(request);
        token = form.text("token", 200);
        decision = form.text("decision", 10);
      } catch (error) {
        if (error instanceof FormTooLarge) return tooLargePage(null);
        throw error;
      }
      if (!token || (decision !== "approve" && decision !== "reject")) return notFoundPage(null);
      const action = decision === "approve" ? "draft.approve" : "draft.reject";
      const answer = await answerLink(svc, token, decision);
      if (answer.kind === "closed") {
        if (answer.state.kind === "unknown") return notFoundPage(null);
        await audit(answer.state, action, 409, { reason: `link_${answer.state.why}` }, request);
        return closedPage(svc, answer.state, 409);
      }
      const state = { subject: answer.subject, reviewer: answer.reviewer };
      if (answer.kind === "rejected") {
        await audit(state, action, 200, {}, request);
        return resultPage(
          answer.subject,
          { kind: "ok", text: "Rejected: the email will not be sent. The agent sees the draft as rejected." },
          200,
        );
      }
      if (answer.kind === "refused") {
        const refusal = answerOf(answer.error);
        const code = typeof refusal.body.code === "string" ? refusal.body.code : null;
        await audit(state, action, refusal.status, { code }, request);
        return resultPage(answer.subject, { kind: "error", text: describeRefusal(answer.error) }, refusal.status);
      }
      const { notice, status } = describeOutcome(answer.result);
      await audit(state, action, status, { delivery_status: answerOfOutcome(answer.result).status }, request);
      return resultPage(answer.subject, notice, status);
    },
  };
}
