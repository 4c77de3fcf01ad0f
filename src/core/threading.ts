// Threads: a message joins the thread of an earlier message of the same mailbox (inbound or
// outbound) that its In-Reply-To or References name; otherwise it starts a new thread.
import type { Db } from "../db.ts";
import { newId } from "./ids.ts";

export async function threadFor(db: Db, mailboxId: string, inReplyTo: string | null, references: string[]): Promise<string> {
  // In-Reply-To names the direct parent; References are newest last, so prefer them in reverse.
  const candidates = [...new Set([inReplyTo, ...[...references].reverse()].filter((id): id is string => !!id))];
  if (candidates.length > 0) {
    const [match] = await db`
      select thread_id from messages
      where mailbox_id = ${mailboxId} and rfc_message_id = any(${candidates}::text[])
      order by array_position(${candidates}::text[], rfc_message_id), created_at
      limit 1`;
    if (match) return match.thread_id as string;
  }
  return newId("thr");
}
