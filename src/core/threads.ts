// Threads of a mailbox: the list by latest activity (newest first, walked back with a cursor) and
// one thread with its messages in order, inbound and outbound. A thread is the set of messages
// sharing a thread_id (see threading.ts); it has no row of its own. Same visibility as messages:
// outbound mail once sent, the one 404 for another account's thread or another mailbox's under a
// bound key.
import type { Db } from "../db.ts";
import { fullBodies } from "./content.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { errors } from "./errors.ts";
import { threadLabelFilter } from "./labels.ts";
import { assertMailboxAllowed, type Principal } from "./principal.ts";
import { type AttachmentWithText, attachmentsOf, replyTextOf, snippetOf } from "./reading.ts";
import type { Services } from "./services.ts";

export type ThreadSummary = {
  id: string;
  mailbox_id: string;
  subject: string;
  participants: string[];
  message_count: number;
  last_message_id: string;
  last_message_at: string;
  snippet: string;
};

export type ThreadMessage = {
  id: string;
  direction: "in" | "out";
  rfc_message_id: string | null;
  in_reply_to: string | null;
  from_addr: string;
  to_addr: string;
  subject: string;
  created_at: string;
  body_clean: string | null;
  reply_text: string | null;
  truncated: boolean;
  comprehension: Record<string, unknown> | null;
  spam_risk: "low" | "high" | "error" | null;
  virus_risk: "low" | "high" | null;
  attachments: AttachmentWithText[];
};

export type ThreadDetail = Omit<ThreadSummary, "snippet" | "last_message_id"> & { messages: ThreadMessage[]; has_more: boolean };

/** A thread longer than this returns its first messages and has_more. */
export const THREAD_MESSAGE_LIMIT = 200;

export async function listThreads(
  db: Db,
  principal: Principal,
  mailboxId: string,
  limit: number,
  cursor?: string,
  label?: string,
): Promise<{ threads: ThreadSummary[]; nextCursor: string | null }> {
  assertMailboxAllowed(principal, mailboxId);
  const after = decodeCursor("t", cursor);
  const labelled = label === undefined ? db`` : db`and ${threadLabelFilter(db, label)}`;
  // Each thread's latest visible message decides its place: walk the mailbox newest first (its
  // index) and keep the messages no later message of their thread follows (an index probe each),
  // so a page costs about limit × thread length, not the whole mailbox.
  const latest = await db`
    select m.thread_id, m.id, m.created_at, m.body_clean, m.reply_text,
      (extract(epoch from m.created_at) * 1000000)::bigint::text as micros
    from messages m
    where m.mailbox_id = ${mailboxId} and m.account_id = ${principal.accountId}
      and (m.delivery_status is null or m.delivery_status = 'sent')
      and (${after?.micros ?? null}::bigint is null
        or (m.created_at, m.id) < (timestamptz 'epoch' + ${after?.micros ?? null}::bigint * interval '1 microsecond', ${after?.id ?? null}::text))
      and not exists (
        select 1 from messages later
        where later.mailbox_id = m.mailbox_id and later.thread_id = m.thread_id
          and (later.created_at, later.id) > (m.created_at, m.id)
          and (later.delivery_status is null or later.delivery_status = 'sent'))
      ${labelled}
    order by m.created_at desc, m.id desc
    limit ${limit}`;
  const aggregates = await threadAggregates(
    db,
    mailboxId,
    latest.map((row) => row.thread_id as string),
  );
  const threads = latest.map((row): ThreadSummary => {
    const aggregate = aggregates.get(row.thread_id)!;
    return {
      id: row.thread_id,
      mailbox_id: mailboxId,
      subject: aggregate.subject,
      participants: aggregate.participants,
      message_count: aggregate.message_count,
      last_message_id: row.id,
      last_message_at: row.created_at,
      snippet: snippetOf(replyTextOf(row as never) || row.body_clean),
    };
  });
  const last = latest.length === limit ? latest[latest.length - 1] : undefined;
  return { threads, nextCursor: last ? encodeCursor("t", { micros: last.micros, id: last.id }) : null };
}

type Aggregate = { subject: string; participants: string[]; message_count: number };

/** Subject (of the first message), everyone but the mailbox itself, and the count, per thread. */
async function threadAggregates(db: Db, mailboxId: string, threadIds: string[]): Promise<Map<string, Aggregate>> {
  if (threadIds.length === 0) return new Map();
  const rows = await db`
    select m.thread_id, count(*)::int as message_count,
      (array_agg(m.subject order by m.created_at, m.id))[1] as subject,
      coalesce((
        select array_agg(distinct lower(p.address) order by lower(p.address))
        from messages x, lateral (values (x.from_addr), (x.to_addr)) as p(address)
        where x.mailbox_id = ${mailboxId} and x.thread_id = m.thread_id
          and (x.delivery_status is null or x.delivery_status = 'sent')
          and p.address <> '' and lower(p.address) <> lower(b.address)
      ), '{}') as participants
    from messages m join mailboxes b on b.id = m.mailbox_id
    where m.mailbox_id = ${mailboxId} and m.thread_id = any(${threadIds}::text[])
      and (m.delivery_status is null or m.delivery_status = 'sent')
    group by m.thread_id, b.address`;
  return new Map(rows.map((row) => [row.thread_id as string, row as unknown as Aggregate]));
}

/** The thread's messages with their whole body_clean (from the object store where it holds one: 503 when unreadable). */
export async function getThread(
  svc: Pick<Services, "sql" | "blobs" | "log">,
  principal: Principal,
  threadId: string,
): Promise<ThreadDetail> {
  const db = svc.sql;
  const rows = await db`
    select id, mailbox_id, direction, rfc_message_id, in_reply_to, from_addr, to_addr, subject, created_at,
      body_clean, body_clean_key, body_clean_sha256,
      reply_text, truncated, comprehension, spam_risk, virus_risk
    from messages
    where thread_id = ${threadId} and account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
      and (delivery_status is null or delivery_status = 'sent')
    order by created_at, id
    limit ${THREAD_MESSAGE_LIMIT + 1}`;
  if (rows.length === 0) throw errors.notFound("thread");
  const page = await Promise.all(rows.slice(0, THREAD_MESSAGE_LIMIT).map((row) => fullBodies(svc, row)));
  const mailboxId = page[0]!.mailbox_id as string;
  const [aggregate] = (await threadAggregates(db, mailboxId, [threadId])).values();
  const attachments = await attachmentsOf(
    db,
    page.map((row) => row.id as string),
  );
  const messages = page.map(({ mailbox_id: _mailbox, ...row }) => ({
    ...(row as Omit<ThreadMessage, "reply_text" | "attachments">),
    reply_text: replyTextOf(row as never),
    attachments: attachments.get(row.id) ?? [],
  }));
  const lastMessage = page[page.length - 1]!;
  return {
    id: threadId,
    mailbox_id: mailboxId,
    subject: aggregate?.subject ?? page[0]!.subject,
    participants: aggregate?.participants ?? [],
    message_count: aggregate?.message_count ?? page.length,
    last_message_at: lastMessage.created_at,
    messages,
    has_more: rows.length > THREAD_MESSAGE_LIMIT,
  };
}
