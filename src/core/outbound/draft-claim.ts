// A draft claimed for sending, inside the transaction that records its message (dispatch.ts): the
// row is locked and checked, moved to sending, and what goes out is read from the locked row, so an
// edit accepted before the claim is in the mail and a later one gets approval_conflict. A human's
// approval is the claim from pending_approval: its review closes and draft.approved names the message.
import type { Tx } from "../../db.ts";
import { draftAttachmentFiles } from "../attachment-bytes.ts";
import { errors } from "../errors.ts";
import { findMailbox } from "../mailboxes.ts";
import { recordLifecycleEvent } from "../webhooks/index.ts";
import { DRAFT_COLUMNS, type DraftRow, draftEventBase } from "./draft-rows.ts";
import { automaticOriginal } from "./loop-guard.ts";
import type { DispatchContent } from "./outgoing.ts";
import { checkRecipientPolicy } from "./policy.ts";
import { closeReview } from "./reviews.ts";

/** Which draft is sent, from which state, and who approved it (null when no one had to). */
export type DraftClaim = { id: string; from: "draft" | "pending_approval"; decidedBy: string | null };

export async function claimDraft(tx: Tx, claim: DraftClaim, messageId: string): Promise<DispatchContent> {
  const { id, from, decidedBy } = claim;
  const [row] = await tx.unsafe<DraftRow[]>(
    `select ${DRAFT_COLUMNS} from drafts where id = $1 and status = $2 and deleted_at is null for update`,
    [id, from],
  );
  if (!row) throw errors.approvalConflict();
  if (!row.to) throw errors.draftWithoutRecipient();
  await checkRecipientPolicy(tx, { accountId: row.account_id }, row.mailbox_id, row.to);
  const mailbox = await findMailbox(tx, { accountId: row.account_id }, row.mailbox_id);
  if (!mailbox) throw errors.notFound("mailbox");
  await tx`
    update drafts set status = 'sending', last_error = null, decided_by = coalesce(${decidedBy}, decided_by), updated_at = now()
    where id = ${id}`;
  if (from === "pending_approval") {
    await closeReview(tx, id, "approved", decidedBy);
    await recordLifecycleEvent(tx, {
      ...draftEventBase(row),
      messageId,
      type: "draft.approved",
      detail: { decided_by: decidedBy, held_reason: row.held_reason },
    });
  }
  return {
    mailbox,
    to: row.to,
    subject: row.subject,
    text: row.text,
    threadId: row.thread_id,
    inReplyTo: row.in_reply_to,
    references: row.references,
    draftId: id,
    attachments: await draftAttachmentFiles(tx, id),
    answersAutomatic: (await automaticOriginal(tx, { accountId: row.account_id }, row.reply_to_message_id)) !== null,
  };
}
