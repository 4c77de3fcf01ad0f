// Drafts and the approval queue. Every transition is one conditional UPDATE ... WHERE status = ...
// RETURNING, so the loser of a race between send, edit and delete gets approval_conflict.
//
//   draft ──send (approval off)──▶ sending ──▶ sent          (tombstoned)
//   draft ──send (approval on)───▶ pending_approval ──approve──▶ sending ──▶ sent
//                                  pending_approval ──reject───▶ rejected (tombstoned)
//   sending ──permanent rejection──▶ draft (error recorded, fix and send again)
//   draft ──delete──▶ deleted (tombstoned)
import type { Db, Sql, Tx } from "../../db.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import { findMailbox } from "../mailboxes.ts";
import type { Tenant } from "../principal.ts";
import { assertMailboxAllowed, type Principal } from "../principal.ts";
import type { Services } from "../services.ts";
import { recordLifecycleEvent } from "../webhooks/index.ts";
import { dispatchMessage } from "./dispatch.ts";
import { DRAFT_COLUMNS, type Draft, type DraftRow, type DraftStatus, draftEventBase, draftView } from "./draft-rows.ts";
import { loopGuardReason } from "./loop-guard.ts";
import type { SendOutcome } from "./outcome.ts";
import {
  assertSendingEntitled,
  type OutgoingRequest,
  type ResolvedOutgoing,
  resolveMailbox,
  resolveOutgoing,
  validateRecipient,
  validateSubject,
  validateText,
} from "./outgoing.ts";
import { checkRecipientPolicy } from "./policy.ts";
import { closeReview, type HoldReason, openReview } from "./reviews.ts";

async function insertDraft(
  db: Db,
  principal: Principal,
  outgoing: ResolvedOutgoing,
  status: DraftStatus,
  clientId: string | null,
): Promise<DraftRow> {
  const [row] = await db.unsafe<DraftRow[]>(
    `insert into drafts (id, account_id, mailbox_id, status, to_addr, subject, text, reply_to_message_id, in_reply_to, "references",
       requires_human, thread_id, client_id, created_by_key_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11, $12, $13, $14)
     returning ${DRAFT_COLUMNS}`,
    [
      newId("drf"),
      principal.accountId,
      outgoing.mailbox.id,
      status,
      outgoing.to,
      outgoing.subject,
      outgoing.text,
      outgoing.reply?.messageId ?? null,
      outgoing.reply?.inReplyTo ?? null,
      outgoing.reply?.references ?? [],
      status === "pending_approval",
      outgoing.threadId,
      clientId,
      principal.keyId,
    ] as never[],
  );
  return row!;
}

export async function createDraft(svc: Services, principal: Principal, body: OutgoingRequest): Promise<{ id: string; status: "draft" }> {
  // A draft may be saved without a recipient when the original it replies to has no usable one;
  // sending it is then 422 until a recipient is set.
  const outgoing = await resolveOutgoing(svc.sql, principal, body, { allowMissingRecipient: true });
  const row = await insertDraft(svc.sql, principal, outgoing, "draft", body.client_id ?? null);
  svc.log.info("draft.created", { draft_id: row.id, mailbox_id: row.mailbox_id });
  return { id: row.id, status: "draft" };
}

/** Why a send from this mailbox waits for a human now (its setting, or a pause), or null when it may go out. */
export function holdReasonOf(mailbox: { require_approval: boolean; paused_at: string | null }): HoldReason | null {
  if (mailbox.paused_at) return "mailbox_paused";
  return mailbox.require_approval ? "require_approval" : null;
}

/** The draft POST /send creates when it must wait for a human: created, then held (holdForApproval). */
export async function createForcedDraft(
  tx: Tx,
  principal: Principal,
  outgoing: ResolvedOutgoing,
  clientId: string | null,
  heldReason: string | null = null,
): Promise<Draft> {
  const created = await insertDraft(tx, principal, outgoing, "draft", clientId);
  const held = await holdForApproval(tx, created.id, heldReason);
  return draftView(held!);
}

/**
 * The one way into pending_approval (draft send on a mailbox that requires approval, POST /send's
 * forced draft, the loop guard): the conditional update and its draft.pending_approval event, in
 * the caller's transaction, with its review (reviews.ts: the reviewer email and expiry jobs).
 * heldReason: why it is held when the mailbox setting is not the reason (null when it is):
 * 'mailbox_paused', 'risky_forward', the loop guard's. Null when the draft was not in `draft` any more.
 */
export async function holdForApproval(tx: Tx, draftId: string, heldReason: string | null): Promise<DraftRow | null> {
  const [row] = await tx.unsafe<DraftRow[]>(
    `update drafts set status = 'pending_approval', requires_human = true, held_reason = $2, updated_at = now()
     where id = $1 and status = 'draft' and deleted_at is null
     returning ${DRAFT_COLUMNS}`,
    [draftId, heldReason],
  );
  if (!row) return null;
  await recordLifecycleEvent(tx, {
    ...draftEventBase(row),
    type: "draft.pending_approval",
    detail: { held_reason: heldReason, held_by: heldByOf(heldReason) },
  });
  await openReview(tx, draftId, heldReason ?? "require_approval");
  return row;
}

/** Which rule held it, for the event: the mailbox's setting or pause, else the check that set the reason. */
function heldByOf(heldReason: string | null): string {
  if (heldReason === null) return "require_approval";
  if (heldReason === "mailbox_paused" || heldReason === "risky_forward") return heldReason;
  return "loop_guard";
}

/** A live draft the principal may see; tombstoned, deleted and foreign drafts are the one 404. */
export async function findDraft(db: Db, principal: Principal, id: string): Promise<DraftRow | null> {
  const [row] = await db.unsafe<DraftRow[]>(
    `select ${DRAFT_COLUMNS} from drafts
     where id = $1 and account_id = $2 and ($3::text is null or mailbox_id = $3) and deleted_at is null`,
    [id, principal.accountId, principal.mailboxId] as never[],
  );
  return row ?? null;
}

export async function visibleDraft(db: Db, principal: Principal, id: string): Promise<DraftRow> {
  const row = await findDraft(db, principal, id);
  if (!row || row.status === "sent" || row.status === "rejected") throw errors.notFound("draft");
  return row;
}

export async function getDraft(db: Db, principal: Principal, id: string): Promise<Draft> {
  return draftView(await visibleDraft(db, principal, id));
}

export async function listDrafts(db: Db, principal: Principal, mailboxId: string): Promise<Draft[]> {
  assertMailboxAllowed(principal, mailboxId);
  const rows = await db.unsafe<DraftRow[]>(
    `select ${DRAFT_COLUMNS} from drafts
     where mailbox_id = $1 and account_id = $2 and deleted_at is null and status not in ('sent', 'rejected')
     order by created_at desc, id desc limit 500`,
    [mailboxId, principal.accountId] as never[],
  );
  return rows.map(draftView);
}

/** After a conditional update matched nothing: 404 if the draft is gone, else 409. */
export async function conflictOrMissing(db: Db, principal: Principal, id: string): Promise<never> {
  const row = await findDraft(db, principal, id);
  if (!row) throw errors.notFound("draft");
  throw errors.approvalConflict();
}

export type DraftPatch = { to?: string; subject?: string; text?: string; reply_to_message_id?: unknown };

export async function updateDraft(db: Db, principal: Principal, id: string, patch: DraftPatch): Promise<Draft> {
  if (patch.reply_to_message_id !== undefined) throw errors.validation("reply_to_message_id cannot be changed");
  if (patch.subject !== undefined) validateSubject(patch.subject);
  if (patch.text !== undefined && patch.text.length === 0) throw errors.validation("text must be at least 1 character");
  if (patch.text !== undefined) validateText(patch.text);
  const to = patch.to === undefined ? undefined : validateRecipient(patch.to, true);
  const [row] = await db.unsafe<DraftRow[]>(
    `update drafts set
       to_addr = case when $4::boolean then $5 else to_addr end,
       subject = coalesce($6, subject),
       text = coalesce($7, text),
       updated_at = now()
     where id = $1 and account_id = $2 and ($3::text is null or mailbox_id = $3) and deleted_at is null and status = 'draft'
       -- approved by a human for a later send: what goes out is what they approved
       and approved_at is null
     returning ${DRAFT_COLUMNS}`,
    [id, principal.accountId, principal.mailboxId, to !== undefined, to ?? null, patch.subject ?? null, patch.text ?? null] as never[],
  );
  if (!row) return conflictOrMissing(db, principal, id);
  return draftView(row);
}

export async function deleteDraft(db: Db, principal: Principal, id: string): Promise<void> {
  const rows = await db`
    update drafts set deleted_at = now(), updated_at = now()
    where id = ${id} and account_id = ${principal.accountId} and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
      and deleted_at is null and status = 'draft'
    returning id`;
  if (rows.length === 0) await conflictOrMissing(db, principal, id);
}

const pendingResponse = (id: string): SendOutcome => ({ kind: "pending_approval", draftId: id });

export async function sendDraft(svc: Services, principal: Principal, id: string): Promise<SendOutcome> {
  const draft = await visibleDraft(svc.sql, principal, id);
  if (draft.status === "pending_approval") return pendingResponse(id);
  if (draft.status !== "draft") throw errors.approvalConflict();
  if (!draft.to) throw errors.draftWithoutRecipient();
  // The order of docs/api.md, as for POST /send: entitlement, send lists and suppression, then approval.
  // Without approval, deliverDraft checks the lists and suppressions under the draft's lock.
  const mailbox = await resolveMailbox(svc.sql, principal, draft.mailbox_id);
  assertSendingEntitled(principal.plan, mailbox);
  if (draft.approved_at) return deliverDraft(svc, draft.id, { accountId: draft.account_id }, "draft", draft.decided_by);
  const loopReason = await loopGuardReason(
    svc.sql,
    { accountId: draft.account_id },
    { messageId: draft.reply_to_message_id, threadId: draft.thread_id },
  );
  // A pause first (the operator's stop: no reviewer email), then the loop guard, then the mailbox's setting.
  const pause = holdReasonOf(mailbox) === "mailbox_paused" ? "mailbox_paused" : null;
  if (pause || mailbox.require_approval || loopReason) {
    await checkRecipientPolicy(svc.sql, { accountId: draft.account_id }, draft.mailbox_id, draft.to);
    const queued = await svc.sql.begin((tx) => holdForApproval(tx, id, pause ?? loopReason));
    if (!queued) {
      const now = await findDraft(svc.sql, principal, id);
      if (now?.status === "pending_approval") return pendingResponse(id);
      return conflictOrMissing(svc.sql, principal, id);
    }
    svc.log.info("draft.queued_for_approval", { draft_id: id });
    return pendingResponse(id);
  }
  return deliverDraft(svc, draft.id, { accountId: draft.account_id }, "draft");
}

/**
 * Moves a draft from `from` to sending and delivers it through the shared pipeline. Used by draft
 * send (from draft) and by a human's approval (from pending_approval). The draft is locked,
 * checked and claimed in the transaction that records the message (draft-claim.ts).
 */
export async function deliverDraft(
  svc: Services,
  draftId: string,
  tenant: Tenant,
  from: "draft" | "pending_approval",
  decidedBy: string | null = null,
): Promise<SendOutcome> {
  const { accountId } = tenant;
  // The draft's status and the message's outcome move together (record-outcome.ts, recordOutcome).
  return dispatchMessage(svc, { accountId, draft: { id: draftId, from, decidedBy } });
}

/**
 * Who decides on a pending draft: a dashboard user, who may act on their own account's drafts only,
 * or the operator's CLI (accountId null), on any. Another account's draft is the same 404 as a missing one.
 */
export type Decider = { accountId: string | null; name: string };

/** A human approves a pending draft (dashboard, CLI): it goes out through the same pipeline. */
export async function approveDraft(svc: Services, decider: Decider, draftId: string): Promise<SendOutcome> {
  const [row] = await svc.sql.unsafe<DraftRow[]>(
    `select ${DRAFT_COLUMNS} from drafts where id = $1 and ($2::text is null or account_id = $2) and deleted_at is null`,
    [draftId, decider.accountId] as never[],
  );
  if (!row || row.status === "sent" || row.status === "rejected") throw errors.notFound("draft");
  if (row.status !== "pending_approval") throw errors.approvalConflict();
  if (!row.to) throw errors.draftWithoutRecipient();
  const [account] = await svc.sql`select plan from accounts where id = ${row.account_id}`;
  const mailbox = await findMailbox(svc.sql, { accountId: row.account_id }, row.mailbox_id);
  if (mailbox) assertSendingEntitled(account?.plan ?? "free", mailbox);
  // Send lists and suppressions are checked when the draft is claimed, under its lock; the
  // approver is recorded with the claim.
  svc.log.info("draft.approved", { draft_id: draftId, decided_by: decider.name });
  if (row.scheduled_at && new Date(row.scheduled_at).getTime() > Date.now()) return approveForLater(svc, row, decider.name);
  return deliverDraft(svc, row.id, { accountId: row.account_id }, "pending_approval", decider.name);
}

/**
 * Approval of a draft scheduled for later: it waits in `draft`, approved (its text frozen), and
 * the schedule's job sends it at its time (src/core/outbound/scheduled-drafts.ts). draft.approved commits
 * with the change; the message it names comes with message.sent then.
 */
async function approveForLater(svc: Services, row: DraftRow, decidedBy: string): Promise<SendOutcome> {
  const approved = await svc.sql.begin(async (tx) => {
    const [updated] = await tx.unsafe<DraftRow[]>(
      `update drafts set status = 'draft', approved_at = now(), decided_by = $2, updated_at = now()
       where id = $1 and status = 'pending_approval' and deleted_at is null returning ${DRAFT_COLUMNS}`,
      [row.id, decidedBy],
    );
    if (!updated) return null;
    await recordLifecycleEvent(tx, {
      ...draftEventBase(updated),
      type: "draft.approved",
      detail: {
        decided_by: decidedBy,
        held_reason: updated.held_reason,
        scheduled_at: updated.scheduled_at ? new Date(updated.scheduled_at).toISOString() : null,
      },
    });
    return updated;
  });
  if (!approved) throw errors.approvalConflict();
  return { kind: "scheduled", draftId: row.id, scheduledAt: new Date(approved.scheduled_at!).toISOString() };
}

/**
 * The one way into rejected, for a human (dashboard, CLI) and for anything deciding in a human's
 * place (review expiry): the conditional update and its draft.rejected event commit together.
 * reason: why, beside who (`decider.name`): null for a human's plain rejection, e.g. 'expired'.
 * An expired review is no one's decision: `decided_by` stays null, and its review closes as expired
 * (reviews.ts also writes it into the account's audit trail).
 */
export async function rejectDraft(sql: Sql | Tx, decider: Decider, draftId: string, reason: string | null = null): Promise<void> {
  const reject = async (tx: Tx) => {
    const [row] = await tx.unsafe<DraftRow[]>(
      `update drafts set status = 'rejected', decided_by = $2, updated_at = now()
       where id = $1 and ($3::text is null or account_id = $3) and status = 'pending_approval' and deleted_at is null
       returning ${DRAFT_COLUMNS}`,
      [draftId, reason === "expired" ? null : decider.name, decider.accountId] as never[],
    );
    if (!row) return false;
    await closeReview(tx, draftId, reason === "expired" ? "expired" : "rejected", reason === "expired" ? null : decider.name);
    await recordLifecycleEvent(tx, {
      ...draftEventBase(row),
      type: "draft.rejected",
      detail: { decided_by: decider.name, reason, held_reason: row.held_reason },
    });
    return true;
  };
  const rejected = "begin" in sql ? await (sql as Sql).begin(reject) : await reject(sql as Tx);
  if (rejected) return;
  const [row] = await sql`
    select status from drafts
    where id = ${draftId} and (${decider.accountId}::text is null or account_id = ${decider.accountId}) and deleted_at is null`;
  if (!row || row.status === "sent" || row.status === "rejected") throw errors.notFound("draft");
  throw errors.approvalConflict();
}

export async function listPendingDrafts(db: Db, tenant: Tenant): Promise<Draft[]> {
  const { accountId } = tenant;
  const rows = await db.unsafe<DraftRow[]>(
    `select ${DRAFT_COLUMNS} from drafts where account_id = $1 and status = 'pending_approval' and deleted_at is null order by created_at`,
    [accountId],
  );
  return rows.map(draftView);
}
