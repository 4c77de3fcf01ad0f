// Opening and closing a draft's review, in the transaction of the draft's own transition (see
// approvals.ts for what a review is). Apart from approvals.ts so that drafts.ts and send.ts, which
// move drafts, do not import the notification and link code that itself calls them.
import type { Db } from "../../db.ts";
import { newId } from "../ids.ts";
import { enqueueJob } from "../jobs.ts";

/** Who the service's own mail to reviewers comes from. */
export const reviewSender = (sharedDomain: string) => `approvals@${sharedDomain}`;

/** Who an expired review's rejection is recorded as: no one's decision. */
export const EXPIRY = { accountId: null, name: "review_window" } as const;

/** Why a draft waits for a human: the mailbox's setting, a pause, or what another check recorded (the loop guard). */
export type HoldReason = "require_approval" | "mailbox_paused" | (string & {});
export type ReviewOutcome = "approved" | "rejected" | "expired";

/**
 * Opens the draft's review, in the caller's transaction (the one that set pending_approval): the
 * notification and expiry jobs commit with it or not at all. A draft already under review keeps
 * its review. A hold for a paused mailbox tells no one by email: the human who paused it knows,
 * and an agent looping on a paused mailbox must not turn into a flood of mail to reviewers.
 */
export async function openReview(tx: Db, draftId: string, reason: HoldReason): Promise<void> {
  // drafts.held_reason, when another part of the service set one (the loop guard), says more than ours.
  const [review] = await tx`
    insert into draft_reviews (id, draft_id, account_id, draft_version, reason, expires_at)
    select ${newId("rev")}, d.id, d.account_id, d.updated_at, coalesce(to_jsonb(d) ->> 'held_reason', ${reason}),
      now() + make_interval(hours => m.review_window_hours)
    from drafts d join mailboxes m on m.id = d.mailbox_id
    where d.id = ${draftId} and d.status = 'pending_approval'
    on conflict (draft_id) where outcome is null do nothing
    returning id, reason, expires_at`;
  if (!review) return;
  if (review.reason !== "mailbox_paused")
    await enqueueJob(tx, "notify_reviewers", { review_id: review.id }, { jobKey: `notify:${review.id}` });
  await enqueueJob(tx, "expire_review", { review_id: review.id }, { jobKey: `expire:${review.id}`, runAt: review.expires_at });
}

/**
 * Closes the draft's open review, in the transaction of the decision. An expiry also goes into the
 * account's audit trail, where a human's decisions are: as the review window's doing, not a person's.
 */
export async function closeReview(tx: Db, draftId: string, outcome: ReviewOutcome, decidedBy: string | null): Promise<void> {
  const closed = await tx`
    update draft_reviews set outcome = ${outcome}, decided_by = ${decidedBy}, decided_at = now()
    where draft_id = ${draftId} and outcome is null
    returning account_id, expires_at`;
  if (outcome !== "expired") return;
  const [draft] = await tx`select account_id from drafts where id = ${draftId}`;
  if (!draft) return;
  const details = { reason: "expired", review_expired_at: closed[0]?.expires_at ?? null };
  await tx`
    insert into dashboard_audit (account_id, user_id, user_email, action, outcome, target_id, details)
    values (${draft.account_id}, null, null, 'draft.expired', 'ok', ${draftId}, ${tx.json(details as never)})`;
}

export type ReviewRow = {
  id: string;
  draft_id: string;
  account_id: string;
  draft_version: string;
  reason: string;
  expires_at: string;
  outcome: ReviewOutcome | null;
  decided_by: string | null;
  decided_at: string | null;
};

/** Everything a reviewer must see to decide, gathered for the email and the confirmation page. */
export type ReviewSubject = {
  review: ReviewRow;
  draft: {
    id: string;
    status: string;
    from: string;
    fromName: string | null;
    to: string | null;
    subject: string;
    text: string;
    updatedAt: string;
    decidedBy: string | null;
  };
  mailboxId: string;
  key: { id: string; name: string | null; hint: string } | null;
  attachments: { filename: string; size: number }[];
  /** the message the draft answers, with its screening verdicts */
  repliesTo: {
    id: string;
    from: string;
    subject: string;
    comprehensionStatus: string | null;
    injectionRisky: boolean;
    injectionScore: number | null;
    spamRisk: string | null;
    virusRisk: string | null;
    dmarc: string | null;
  } | null;
  /** warnings said first: a risky message anywhere in the thread */
  warnings: string[];
};
