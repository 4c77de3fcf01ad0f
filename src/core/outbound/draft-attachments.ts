// Attachments on outgoing mail: files added to a draft (uploaded, or copied from a received
// message by reference), listed and removed while the draft is editable, and sent with it.
// Every file is checked once, when it is added, so what the draft holds is what goes out:
//   size (one file and the draft's total, ATTACHMENT_MAX_BYTES) and count (ATTACHMENT_MAX_COUNT),
//   the declared content type against the bytes (mail/content-type-check.ts),
//   ClamAV when CLAMD_ADDRESS is set (fail closed: no verdict, no attachment).
// Adding and removing follow the draft's edit rule: only a `draft` changes (else approval_conflict);
// the draft row is locked while the count and total are checked, as a send locks it to claim it.
import { scanWithClamd } from "../../comprehension/scanners/clamd.ts";
import type { Db, Tx } from "../../db.ts";
import { checkContentType } from "../../mail/content-type-check.ts";
import { messageAttachmentContent, type OutgoingFile, sha256Hex, storeDraftAttachment } from "../attachment-bytes.ts";
import { errors } from "../errors.ts";
import type { Principal } from "../principal.ts";
import type { Services } from "../services.ts";

export type DraftAttachment = {
  id: string;
  draft_id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  /** the received attachment it was copied from, or null for an upload */
  source_attachment_id: string | null;
  created_at: string;
};

export type NewAttachment = { filename: string | null | undefined; contentType: string | null | undefined; content: Uint8Array };

/** The most bytes one file may have when it arrives as base64 through MCP (see docs/decisions.md). */
export const MCP_ATTACHMENT_MAX_BYTES = 512 * 1024;

const FILENAME_CONTROLS = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

export const attachmentErrors = {
  tooLarge: errors.attachmentsTooLarge,
  tooMany: errors.tooManyAttachments,
  infected: errors.attachmentInfected,
  scannerUnavailable: errors.virusScannerUnavailable,
  maliciousSource: errors.attachmentFromMalware,
};

/** The name shown to the recipient: the last path segment, without controls or direction overrides. */
export function validateFilename(raw: string | null | undefined): string {
  const name = (raw ?? "").split(/[\\/]/).pop()!.trim();
  if (name === "" || name === "." || name === "..") throw errors.validation("the file needs a filename");
  if (name.length > 255) throw errors.validation("filename must be at most 255 characters");
  if (FILENAME_CONTROLS.test(name)) throw errors.validation("filename must not contain control or text-direction characters");
  return name;
}

/** Size, name and type checks shared by every way of adding a file; returns the file as it will be sent. */
async function checkedFile(svc: Services, file: NewAttachment): Promise<OutgoingFile> {
  const filename = validateFilename(file.filename);
  if (file.content.byteLength === 0) throw errors.validation("the file is empty");
  if (file.content.byteLength > svc.config.attachments.maxBytes) throw attachmentErrors.tooLarge(svc.config.attachments.maxBytes);
  const type = await checkContentType(file.contentType, file.content);
  if (!type.ok) throw errors.validation(type.error);
  await scanOutgoing(svc, file.content);
  return { filename, contentType: type.contentType, content: file.content };
}

/** ClamAV over one file when configured; an agent must not send malware in the account's name. */
async function scanOutgoing(svc: Services, content: Uint8Array): Promise<void> {
  const address = svc.config.screening.clamdAddress;
  if (!address) return;
  let verdict: Awaited<ReturnType<typeof scanWithClamd>>;
  try {
    verdict = await scanWithClamd(address, content, svc.config.screening.timeoutMs);
  } catch (error) {
    svc.log.warn("attachment.scan_failed", { error: (error as Error).message });
    throw attachmentErrors.scannerUnavailable();
  }
  if (verdict.infected) throw attachmentErrors.infected(verdict.signature ?? "malware");
}

type DraftHead = { id: string; account_id: string; status: string };

/** The draft the principal may see, locked; 404 as for GET /drafts/{id}, 409 unless it is a `draft`. */
async function lockEditableDraft(tx: Tx, principal: Principal, draftId: string): Promise<DraftHead> {
  const [row] = await tx<DraftHead[]>`
    select id, account_id, status from drafts
    where id = ${draftId} and account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId}) and deleted_at is null
    for update`;
  if (!row || row.status === "sent" || row.status === "rejected") throw errors.notFound("draft");
  if (row.status !== "draft") throw errors.approvalConflict();
  return row;
}

/** The same answers as lockEditableDraft, without a lock: checked before the costly checks of a file. */
async function assertEditableDraft(db: Db, principal: Principal, draftId: string): Promise<void> {
  const [row] = await db`
    select status from drafts
    where id = ${draftId} and account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId}) and deleted_at is null`;
  if (!row || row.status === "sent" || row.status === "rejected") throw errors.notFound("draft");
  if (row.status !== "draft") throw errors.approvalConflict();
}

async function attach(svc: Services, principal: Principal, draftId: string, file: OutgoingFile, sourceAttachmentId: string | null) {
  const sha256 = await sha256Hex(file.content);
  const { maxBytes, maxCount } = svc.config.attachments;
  const stored = await svc.sql.begin(async (tx) => {
    const draft = await lockEditableDraft(tx, principal, draftId);
    const [totals] = await tx`
      select count(*)::int as count, coalesce(sum(size), 0)::bigint as bytes from draft_attachments where draft_id = ${draftId}`;
    if (totals!.count >= maxCount) throw attachmentErrors.tooMany(maxCount);
    if (Number(totals!.bytes) + file.content.byteLength > maxBytes) throw attachmentErrors.tooLarge(maxBytes);
    const row = await storeDraftAttachment(tx, { draftId, accountId: draft.account_id, file, sha256, sourceAttachmentId });
    await tx`update drafts set updated_at = now() where id = ${draftId}`;
    return row;
  });
  svc.log.info("draft.attachment_added", {
    draft_id: draftId,
    attachment_id: stored.id,
    size: stored.size,
    content_type: stored.content_type,
    by_reference: sourceAttachmentId !== null,
  });
  return stored as unknown as DraftAttachment;
}

/** POST /drafts/{id}/attachments: an uploaded file. */
export async function addDraftAttachment(
  svc: Services,
  principal: Principal,
  draftId: string,
  file: NewAttachment,
): Promise<DraftAttachment> {
  await assertEditableDraft(svc.sql, principal, draftId);
  return attach(svc, principal, draftId, await checkedFile(svc, file), null);
}

/** POST /drafts/{id}/attachments/from-message: a received (or sent) message's attachment, copied without re-uploading. */
export async function addDraftAttachmentFromMessage(
  svc: Services,
  principal: Principal,
  draftId: string,
  source: { message_id: string; attachment_id: string },
): Promise<DraftAttachment> {
  await assertEditableDraft(svc.sql, principal, draftId);
  // The message as GET /messages/{id} sees it: anything else is the one 404.
  const [message] = await svc.sql`
    select id, virus_risk from messages
    where id = ${source.message_id} and account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
      and (delivery_status is null or delivery_status = 'sent')`;
  if (!message) throw errors.notFound("message");
  if (message.virus_risk === "high") throw attachmentErrors.maliciousSource();
  const [meta] = await svc.sql`
    select filename, content_type from attachments where id = ${source.attachment_id} and message_id = ${message.id}`;
  const content = meta ? await messageAttachmentContent(svc, svc.sql, message.id, source.attachment_id) : null;
  if (!meta || !content) throw errors.notFound("attachment");
  const file = await checkedFile(svc, { filename: meta.filename ?? "attachment", contentType: meta.content_type, content });
  return attach(svc, principal, draftId, file, source.attachment_id);
}

/** GET /drafts/{id}/attachments: any live draft the principal may see (a pending one too). */
export async function listDraftAttachments(db: Db, principal: Principal, draftId: string): Promise<DraftAttachment[]> {
  const [draft] = await db`
    select status from drafts
    where id = ${draftId} and account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId}) and deleted_at is null`;
  if (!draft || draft.status === "sent" || draft.status === "rejected") throw errors.notFound("draft");
  return draftAttachmentSummaries(db, draftId);
}

/** A draft's files without their bytes, in the order they were added (also for the approval queue). */
export async function draftAttachmentSummaries(db: Db, draftId: string): Promise<DraftAttachment[]> {
  const rows = await db`
    select id, draft_id, filename, content_type, size, sha256, source_attachment_id, created_at
    from draft_attachments where draft_id = ${draftId} order by created_at, id`;
  return rows as unknown as DraftAttachment[];
}

/** DELETE /drafts/{id}/attachments/{attachment_id}. */
export async function removeDraftAttachment(svc: Services, principal: Principal, draftId: string, attachmentId: string): Promise<void> {
  await svc.sql.begin(async (tx) => {
    await lockEditableDraft(tx, principal, draftId);
    const removed = await tx`delete from draft_attachments where id = ${attachmentId} and draft_id = ${draftId} returning id`;
    if (removed.length === 0) throw errors.notFound("attachment");
    await tx`update drafts set updated_at = now() where id = ${draftId}`;
  });
}
