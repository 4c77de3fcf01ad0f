// Reviews of drafts held for a human. A review opens in the transaction that moves a draft into
// pending_approval, with its two jobs: telling the account's reviewers by email (notify_reviewers)
// and rejecting the draft when the mailbox's review window runs out (expire_review). It closes
// when a human approves or rejects, or when it expires. Each reviewer gets a link of their own to
// a confirmation page; the link holds a random token of which only the SHA-256 is stored, answers
// once, and only while the review is open, unexpired and the draft unchanged since it was queued.
import type { Db } from "../../db.ts";
import { composeMessage } from "../../mail/compose.ts";
import { base64url, constantTimeEqual, hex, randomBytes, sha256 } from "../../secrets.ts";
import { sharedDomainKey } from "../domains/index.ts";
import { approveDraft, type Decider, rejectDraft } from "./drafts.ts";
import { composeReviewEmail } from "./review-email.ts";
import { EXPIRY, type ReviewRow, type ReviewSubject, reviewSender } from "./reviews.ts";

export type { ReviewSubject } from "./reviews.ts";

import { CoreError, isCoreError, isOurFailure } from "../errors.ts";
import { enqueueJob } from "../jobs.ts";
import type { Services } from "../services.ts";
import type { SendOutcome } from "./outcome.ts";

// ---- Telling reviewers ------------------------------------------------------------------------

export async function reviewSubject(db: Db, reviewId: string): Promise<ReviewSubject | null> {
  const [review] = await db<ReviewRow[]>`
    select id, draft_id, account_id, draft_version, reason, expires_at, outcome, decided_by, decided_at from draft_reviews where id = ${reviewId}`;
  if (!review) return null;
  const [d] = await db`
    select d.id, d.status, d.to_addr, d.subject, d.text, d.updated_at, d.decided_by, d.reply_to_message_id, d.thread_id, d.mailbox_id,
      d.created_by_key_id, m.address, m.display_name
    from drafts d join mailboxes m on m.id = d.mailbox_id where d.id = ${review.draft_id}`;
  if (!d) return null;
  const [key] = d.created_by_key_id ? await db`select id, name, key_hint from api_keys where id = ${d.created_by_key_id}` : [];
  const [replied] = d.reply_to_message_id
    ? await db`select id, from_addr, subject, comprehension, spam_risk, virus_risk, auth_results from messages where id = ${d.reply_to_message_id}`
    : [];
  const risky = await db`
    select
      count(*) filter (where comprehension ->> 'status' = 'skipped_injection_risk' or comprehension -> 'injection' ->> 'risky' = 'true')::int as injection,
      count(*) filter (where spam_risk = 'high' or auth_results ->> 'dmarc' = 'fail')::int as sender,
      count(*) filter (where virus_risk = 'high')::int as virus
    from messages where thread_id = ${d.thread_id} and mailbox_id = ${d.mailbox_id} and direction = 'in'`;
  const counts = risky[0]!;
  const warnings: string[] = [];
  if (counts.injection > 0)
    warnings.push(
      `The conversation this answers holds ${counts.injection} message(s) flagged as a prompt-injection risk: the agent may have been steered by it.`,
    );
  if (counts.sender > 0)
    warnings.push(`The conversation holds ${counts.sender} message(s) from a high-risk sender (spam verdict high, or DMARC failed).`);
  if (counts.virus > 0) warnings.push(`The conversation holds ${counts.virus} message(s) flagged as carrying malware.`);
  const comprehension = (replied?.comprehension ?? null) as { status?: string; injection?: { risky?: boolean; score?: number } } | null;
  return {
    review,
    draft: {
      id: d.id,
      status: d.status,
      from: d.address,
      fromName: d.display_name,
      to: d.to_addr,
      subject: d.subject,
      text: d.text,
      updatedAt: d.updated_at,
      decidedBy: d.decided_by,
    },
    mailboxId: d.mailbox_id,
    key: key ? { id: key.id, name: key.name, hint: key.key_hint } : null,
    attachments: await draftAttachments(db, d.id),
    repliesTo: replied
      ? {
          id: replied.id,
          from: replied.from_addr,
          subject: replied.subject,
          comprehensionStatus: comprehension?.status ?? null,
          injectionRisky: comprehension?.status === "skipped_injection_risk" || comprehension?.injection?.risky === true,
          injectionScore: typeof comprehension?.injection?.score === "number" ? comprehension.injection.score : null,
          spamRisk: replied.spam_risk,
          virusRisk: replied.virus_risk,
          dmarc: (replied.auth_results as { dmarc?: string } | null)?.dmarc ?? null,
        }
      : null,
    warnings,
  };
}

/** The draft's outgoing attachments, by name and size (what goes out with it). */
async function draftAttachments(db: Db, draftId: string): Promise<{ filename: string; size: number }[]> {
  const rows = await db`select filename, size from draft_attachments where draft_id = ${draftId} order by created_at, id`;
  return rows.map((r) => ({ filename: r.filename as string, size: Number(r.size) }));
}

/** The notify_reviewers task: one email per reviewer who has not been sent one, each with a link of their own. */
export async function notifyReviewers(svc: Services, reviewId: string): Promise<{ sent: number }> {
  const subject = await reviewSubject(svc.sql, reviewId);
  if (!subject || subject.review.outcome !== null || subject.draft.status !== "pending_approval") return { sent: 0 };
  const reviewers = await svc.sql`
    select u.id, u.email from dashboard_users u
    where u.account_id = ${subject.review.account_id} and u.reviews_drafts
      and not exists (select 1 from review_links l where l.review_id = ${reviewId} and l.user_id = u.id)
    order by u.created_at, u.id`;
  const key = await sharedDomainKey(svc.sql, svc.config);
  const from = reviewSender(svc.config.sharedDomain);
  let sent = 0;
  let failure: string | null = null;
  for (const reviewer of reviewers) {
    const token = base64url(randomBytes(32));
    await svc.sql`insert into review_links (token_hash, review_id, user_id) values (${await sha256(token)}, ${reviewId}, ${reviewer.id})`;
    const email = composeReviewEmail(subject, { baseUrl: svc.config.publicBaseUrl, token });
    const messageId = `${hex(randomBytes(12))}@${svc.config.sharedDomain}`;
    const raw = await composeMessage({
      from,
      fromName: "Agent Mailbox approvals",
      to: reviewer.email,
      subject: email.subject,
      text: email.text,
      html: email.html,
      messageId,
      dkim: { domainName: svc.config.sharedDomain, keySelector: key.selector, privateKey: key.privateKey },
    });
    // A transport that throws instead of answering is a transient failure like any other.
    const outcome = await svc.transport
      .deliver({ from, to: reviewer.email }, raw, { messageId })
      .catch((error: unknown) => ({ kind: "transient" as const, error: error instanceof Error ? error.message : String(error) }));
    if (outcome.kind === "sent") {
      sent++;
      continue;
    }
    // Not sent: this reviewer's link goes, so a retry of the task sends them a fresh one.
    await svc.sql`delete from review_links where token_hash = ${await sha256(token)}`;
    svc.log.warn("review.notify_failed", { review_id: reviewId, user_id: reviewer.id, outcome: outcome.kind, error: outcome.error });
    if (outcome.kind === "transient" || outcome.kind === "unknown") failure = outcome.error;
  }
  await svc.sql`update draft_reviews set notified_at = coalesce(notified_at, now()) where id = ${reviewId}`;
  svc.log.info("review.notified", { review_id: reviewId, draft_id: subject.draft.id, reviewers: sent });
  // Graphile Worker retries the task with backoff; reviewers already mailed are not mailed again.
  if (failure) throw new Error(`a reviewer's email was not delivered: ${failure}`);
  return { sent };
}

// ---- Expiry -------------------------------------------------------------------------------------

/** The expire_review task: rejects the draft as a human rejection would, recorded as expired. */
export async function expireReview(svc: Services, reviewId: string): Promise<"expired" | "not_due" | "closed"> {
  const [review] =
    await svc.sql`select draft_id, account_id, outcome, expires_at, expires_at <= now() as due from draft_reviews where id = ${reviewId}`;
  if (!review || review.outcome !== null) return "closed";
  if (!review.due) {
    // Run early (a clock step, a window lengthened): come back when it is due.
    await enqueueJob(svc.sql, "expire_review", { review_id: reviewId }, { jobKey: `expire:${reviewId}`, runAt: review.expires_at });
    return "not_due";
  }
  try {
    await rejectDraft(svc.sql, EXPIRY, review.draft_id, "expired");
  } catch (error) {
    // The draft moved on meanwhile (approved, rejected): nothing to expire.
    if (isCoreError(error, "not_found", "approval_conflict", "conflict")) return "closed";
    throw error;
  }
  svc.log.info("review.expired", { review_id: reviewId, draft_id: review.draft_id });
  return "expired";
}

// ---- Links ----------------------------------------------------------------------------------------

export type LinkState =
  | { kind: "unknown" }
  | { kind: "open"; subject: ReviewSubject; reviewer: { id: string; email: string }; tokenHash: Uint8Array }
  /** the link can no longer answer; `subject` says what happened to the draft */
  | { kind: "closed"; subject: ReviewSubject; reviewer: { id: string; email: string }; why: "used" | "decided" | "expired" | "changed" };

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

/** What a link stands for now. Unknown tokens (and malformed ones) are one answer. */
export async function linkState(db: Db, token: string): Promise<LinkState> {
  if (!TOKEN.test(token)) return { kind: "unknown" };
  const hash = await sha256(token);
  const [link] = await db`
    select l.token_hash, l.review_id, l.used_at, u.id as user_id, u.email from review_links l join dashboard_users u on u.id = l.user_id
    where l.token_hash = ${hash}`;
  // The lookup is by hash; the comparison of the stored hash is constant-time all the same.
  if (!link || !constantTimeEqual(hex(link.token_hash as Uint8Array), hex(hash))) return { kind: "unknown" };
  const subject = await reviewSubject(db, link.review_id);
  if (!subject) return { kind: "unknown" };
  const reviewer = { id: link.user_id as string, email: link.email as string };
  const { review, draft } = subject;
  if (review.outcome === "expired") return { kind: "closed", subject, reviewer, why: "expired" };
  if (review.outcome !== null) return { kind: "closed", subject, reviewer, why: "decided" };
  if (link.used_at) return { kind: "closed", subject, reviewer, why: "used" };
  if (new Date(review.expires_at).getTime() <= Date.now()) return { kind: "closed", subject, reviewer, why: "expired" };
  if (draft.status !== "pending_approval" || new Date(draft.updatedAt).getTime() !== new Date(review.draft_version).getTime())
    return { kind: "closed", subject, reviewer, why: "changed" };
  return { kind: "open", subject, reviewer, tokenHash: hash };
}

type Reviewer = { id: string; email: string };
export type LinkAnswer =
  | { kind: "approved"; result: SendOutcome; subject: ReviewSubject; reviewer: Reviewer }
  | { kind: "rejected"; subject: ReviewSubject; reviewer: Reviewer }
  | { kind: "refused"; error: CoreError; subject: ReviewSubject; reviewer: Reviewer }
  | { kind: "closed"; state: Exclude<LinkState, { kind: "open" }> };

/**
 * The POST of a confirmation page. The link is spent first (one conditional UPDATE: of two racing
 * POSTs one wins), then the decision goes through the same functions as the dashboard's buttons,
 * which move the draft only from pending_approval: a dashboard decision in between wins cleanly.
 */
export async function answerLink(svc: Services, token: string, decision: "approve" | "reject"): Promise<LinkAnswer> {
  const state = await linkState(svc.sql, token);
  if (state.kind !== "open") return { kind: "closed", state };
  const spent =
    await svc.sql`update review_links set used_at = now() where token_hash = ${state.tokenHash} and used_at is null returning 1`;
  if (spent.length === 0) return { kind: "closed", state: { ...state, kind: "closed", why: "used" } };
  const decider: Decider = { accountId: state.subject.review.account_id, name: `email-link:${state.reviewer.id}` };
  const { subject, reviewer } = state;
  try {
    if (decision === "approve") return { kind: "approved", result: await approveDraft(svc, decider, subject.draft.id), subject, reviewer };
    await rejectDraft(svc.sql, decider, subject.draft.id);
    return { kind: "rejected", subject, reviewer };
  } catch (error) {
    if (!(error instanceof CoreError) || isOurFailure(error)) throw error;
    if (isCoreError(error, "not_found", "approval_conflict", "conflict")) {
      const now = await linkState(svc.sql, token);
      if (now.kind !== "open") return { kind: "closed", state: now };
    }
    return { kind: "refused", error, subject, reviewer };
  }
}

/** Who decided a draft, in words: from the audit trail when a person did, else from the record. */
export async function decisionOf(
  db: Db,
  subject: ReviewSubject,
): Promise<{ what: string; who: string | null; when: string | null } | null> {
  const [row] = await db`
    select action, user_email, created_at, details from dashboard_audit
    where account_id = ${subject.review.account_id} and target_id = ${subject.draft.id}
      and action in ('draft.approve', 'draft.reject', 'draft.expired') and outcome = 'ok'
    order by id desc limit 1`;
  const status = subject.draft.status;
  const what =
    status === "sent"
      ? "approved and sent"
      : status === "sending"
        ? "approved and being sent"
        : status === "rejected"
          ? subject.review.outcome === "expired" || row?.action === "draft.expired"
            ? "rejected because its review window ran out (no one decided)"
            : "rejected"
          : status === "draft"
            ? "returned to the agent (approved, then refused by the receiving server, or taken back)"
            : "still waiting for approval";
  if (row) return { what, who: row.action === "draft.expired" ? null : (row.user_email as string | null), when: row.created_at as string };
  const decided = subject.draft.decidedBy;
  return { what, who: decided && decided !== EXPIRY.name ? decided : null, when: subject.review.decided_at };
}
