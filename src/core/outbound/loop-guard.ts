// The loop guard: an agent answering automatic mail (an out-of-office, an auto-reply, a helpdesk
// acknowledgement, a bounce) is how mail loops start, two responders answering each other for
// ever. A reply to a message screened as automatic (comprehension.automatic), or any send into a
// thread where the agent keeps answering automatic mail, is held for a human instead of sent:
// the contract's 202 {draft_id, status: pending_approval}, the reason in drafts.held_reason.
import type { Db } from "../../db.ts";
import type { Tenant } from "../principal.ts";

/** Automatic messages and sends in a thread within a day that count as "keeps answering". */
export const THREAD_LOOP_AUTOMATIC = 3;
export const THREAD_LOOP_WINDOW_HOURS = 24;

export type ReplyTarget = { messageId: string | null; threadId: string };

/** The original a reply answers, when it is automatic mail: its kind and first piece of evidence. */
export async function automaticOriginal(
  db: Db,
  tenant: Tenant,
  messageId: string | null,
): Promise<{ kind: string; evidence: string } | null> {
  const { accountId } = tenant;
  if (!messageId) return null;
  const [row] = await db`
    select comprehension->'automatic' as automatic from messages
    where id = ${messageId} and account_id = ${accountId} and direction = 'in'`;
  const automatic = row?.automatic as { kind?: string; evidence?: string[] } | null | undefined;
  if (!automatic?.kind) return null;
  return { kind: automatic.kind, evidence: automatic.evidence?.[0] ?? "" };
}

/** Why this send must wait for a human, or null when it may go. */
export async function loopGuardReason(db: Db, tenant: Tenant, target: ReplyTarget): Promise<string | null> {
  const { accountId } = tenant;
  const original = await automaticOriginal(db, { accountId }, target.messageId);
  if (original) {
    return `reply to automatic mail (${original.kind}${original.evidence ? `: ${original.evidence}` : ""}); answering it can start a mail loop`;
  }
  const [thread] = await db`
    select count(*) filter (where direction = 'in' and comprehension->'automatic' is not null
        and jsonb_typeof(comprehension->'automatic') = 'object')::int as automatic,
      count(*) filter (where direction = 'out')::int as sent
    from messages
    where account_id = ${accountId} and thread_id = ${target.threadId}
      and created_at > now() - make_interval(hours => ${THREAD_LOOP_WINDOW_HOURS})`;
  if (thread && thread.automatic >= THREAD_LOOP_AUTOMATIC && thread.sent >= THREAD_LOOP_AUTOMATIC) {
    return `the agent keeps answering automatic mail in this thread (${thread.automatic} automatic messages and ${thread.sent} sends in ${THREAD_LOOP_WINDOW_HOURS} h)`;
  }
  return null;
}
