// Threads: a message joins the thread of an earlier message of the same mailbox (inbound or
// outbound) that its In-Reply-To or References name; otherwise it starts a new thread.
import type { Db } from "../../db.ts";
import { newId } from "../ids.ts";

/**
 * The thread of a message about to be inserted, as an SQL expression (so the insert need not wait
 * for a look-up's reply): the thread of the earliest-named earlier message, or a new thread id.
 * In-Reply-To names the direct parent; References are newest last, so they are tried in reverse.
 */
export function threadIdExpression(db: Db, mailboxId: string, inReplyTo: string | null, references: string[]) {
  const candidates = [...new Set([inReplyTo, ...[...references].reverse()].filter((id): id is string => !!id))];
  if (candidates.length === 0) return db`${newId("thr")}::text`;
  return db`coalesce((
    select thread_id from messages
    where mailbox_id = ${mailboxId} and rfc_message_id = any(${candidates}::text[])
    order by array_position(${candidates}::text[], rfc_message_id), created_at
    limit 1), ${newId("thr")}::text)`;
}
