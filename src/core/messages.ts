// Reading messages: the list of a mailbox (newest first) and one message in full, with the same
// 404 for a missing id, another account's id, or another mailbox's id under a bound key.
// Outbound messages are visible once sent; one whose delivery is in doubt is not shown yet.
import type { Db } from "../db.ts";
import type { AuthResults } from "../mail/authenticate.ts";
import { messageAttachmentContent } from "./attachment-bytes.ts";
import { fullBodies, type StoredBodies } from "./content.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { errors } from "./errors.ts";
import { messageLabelFilter } from "./labels.ts";
import { assertMailboxAllowed, type Principal } from "./principal.ts";
import type { Services } from "./services.ts";

export type AttachmentSummary = { id: string; filename: string | null; content_type: string; size: number; sha256: string };

export type MessageDetail = {
  id: string;
  mailbox_id: string;
  direction: "in" | "out";
  provider_message_id: string | null;
  rfc_message_id: string | null;
  thread_id: string;
  in_reply_to: string | null;
  from_addr: string;
  to_addr: string;
  subject: string;
  body_raw: string | null;
  body_clean: string | null;
  truncated: boolean;
  created_at: string;
  comprehension: Record<string, unknown> | null;
  attachments: AttachmentSummary[];
  auth_results: AuthResults | null;
  spam_risk: "low" | "high" | "error" | null;
  virus_risk: "low" | "high" | null;
};

export type MessageListItem = {
  id: string;
  direction: "in" | "out";
  from_addr: string;
  to_addr: string;
  subject: string;
  created_at: string;
  comprehension: { status: string; classification: string | null } | null;
};

/** A message the principal may see, or the one 404 every invisible message gets. */
export async function visibleMessage(db: Db, principal: Principal, id: string) {
  const [message] = await db`
    select id, mailbox_id, direction, provider_message_id, rfc_message_id, thread_id, in_reply_to, from_addr, to_addr,
      subject, body_raw, body_clean, body_raw_key, body_raw_sha256, body_clean_key, body_clean_sha256,
      truncated, created_at, comprehension, auth_results, spam_risk, virus_risk
    from messages
    where id = ${id} and account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
      and (delivery_status is null or delivery_status = 'sent')`;
  if (!message) throw errors.notFound("message");
  return message;
}

/** The message in full: bodies the object store holds are read from it (a 503 when it cannot be read). */
export async function getMessage(svc: Pick<Services, "sql" | "blobs" | "log">, principal: Principal, id: string): Promise<MessageDetail> {
  const db = svc.sql;
  const message = await fullBodies(svc, (await visibleMessage(db, principal, id)) as unknown as StoredBodies);
  const attachments = await db<AttachmentSummary[]>`
    select id, filename, content_type, size, sha256 from attachments where message_id = ${id} order by id`;
  return { ...(message as Omit<MessageDetail, "attachments">), attachments: [...attachments] };
}

/**
 * A page of the list, newest first, starting after `cursor` (from an earlier page); `nextCursor`
 * is null when this page reached the mailbox's oldest message.
 */
export async function listMessagesPage(
  db: Db,
  principal: Principal,
  mailboxId: string,
  limit: number,
  cursor?: string,
  label?: string,
): Promise<{ messages: MessageListItem[]; nextCursor: string | null }> {
  assertMailboxAllowed(principal, mailboxId);
  const after = decodeCursor("m", cursor);
  const labelled = label === undefined ? db`` : db`and ${messageLabelFilter(db, label)}`;
  const rows = await db`
    select id, direction, from_addr, to_addr, subject, created_at,
      case when comprehension is null then null
        else jsonb_build_object('status', comprehension->>'status', 'classification', comprehension->'classification'->>'label')
      end as comprehension,
      (extract(epoch from created_at) * 1000000)::bigint::text as micros
    from messages
    where mailbox_id = ${mailboxId} and account_id = ${principal.accountId}
      -- outbound mail appears once it has left (or reconciliation recorded it as sent)
      and (delivery_status is null or delivery_status = 'sent')
      and (${after?.micros ?? null}::bigint is null
        or (created_at, id) < (timestamptz 'epoch' + ${after?.micros ?? null}::bigint * interval '1 microsecond', ${after?.id ?? null}::text))
      ${labelled}
    order by created_at desc, id desc
    limit ${limit}`;
  const last = rows.length === limit ? rows[rows.length - 1] : undefined;
  const messages = rows.map(({ micros: _micros, ...item }) => item) as unknown as MessageListItem[];
  return { messages, nextCursor: last ? encodeCursor("m", { micros: last.micros, id: last.id }) : null };
}

export async function getAttachment(
  svc: Pick<Services, "sql" | "blobs" | "log">,
  principal: Principal,
  messageId: string,
  attachmentId: string,
): Promise<{ filename: string | null; content_type: string; content: Uint8Array }> {
  const db = svc.sql;
  await visibleMessage(db, principal, messageId);
  const [attachment] = await db`select filename, content_type from attachments where id = ${attachmentId} and message_id = ${messageId}`;
  const content = attachment ? await messageAttachmentContent(svc, db, messageId, attachmentId) : null;
  if (!attachment || !content) throw errors.notFound("attachment");
  return { filename: attachment.filename, content_type: attachment.content_type, content };
}
