// Account-scoped mail reads for the dashboard's mail pages, beside core's getMessage: a page of a
// mailbox's messages (keyset paging, newest first), the message's thread, the columns the API
// does not return (sanitization report, headers, parse warnings), and the raw bytes. Every query
// names the account and shows outbound mail only once it has left (core's rule), so another account's id is the same "not found" as a missing one.

import { contentBytes } from "../core/content.ts";
import { errors } from "../core/errors.ts";
import type { Services } from "../core/services.ts";
import type { Db } from "../db.ts";

export type Direction = "in" | "out" | "all";

export type MailRow = {
  id: string;
  direction: "in" | "out";
  from_addr: string;
  to_addr: string;
  subject: string;
  created_at: string;
  status: string | null;
  classification: string | null;
  spam_risk: string | null;
  virus_risk: string | null;
  injection_risky: boolean | null;
  attachments: number;
};

/** The columns of a MailRow, read from `messages m`: one list for the mailbox page and search. */
function mailRowColumns(db: Db) {
  return db`m.id, m.direction, m.from_addr, m.to_addr, m.subject, m.created_at,
    m.comprehension->>'status' as status, m.comprehension->'classification'->>'label' as classification,
    m.spam_risk, m.virus_risk, (m.comprehension->'injection'->>'risky')::boolean as injection_risky,
    (select count(*)::int from attachments a where a.message_id = m.id) as attachments`;
}

/**
 * One page of a mailbox's messages, newest first, strictly older than the message `before` (a
 * message id; one that is not this mailbox's matches nothing). Reads one row more than `limit`
 * to know whether an older page exists.
 */
export async function mailboxPage(
  db: Db,
  accountId: string,
  mailboxId: string,
  options: { direction: Direction; before: string | null; limit: number },
): Promise<{ rows: MailRow[]; older: string | null }> {
  const direction = options.direction === "all" ? null : options.direction;
  const rows = await db<MailRow[]>`
    select ${mailRowColumns(db)}
    from messages m
    where m.account_id = ${accountId} and m.mailbox_id = ${mailboxId} and (m.delivery_status is null or m.delivery_status = 'sent')
      and (${direction}::text is null or m.direction = ${direction})
      and (${options.before}::text is null or (m.created_at, m.id) < (
        select b.created_at, b.id from messages b where b.id = ${options.before} and b.mailbox_id = ${mailboxId} and b.account_id = ${accountId}))
    order by m.created_at desc, m.id desc
    limit ${options.limit + 1}`;
  const page = rows.slice(0, options.limit);
  return { rows: page, older: rows.length > options.limit ? page[page.length - 1]!.id : null };
}

export type ThreadRow = { id: string; direction: "in" | "out"; from_addr: string; subject: string; created_at: string };

/** The visible messages of a thread within one mailbox, oldest first (bounded). */
export async function threadOf(db: Db, accountId: string, mailboxId: string, threadId: string): Promise<ThreadRow[]> {
  return db<ThreadRow[]>`
    select id, direction, from_addr, subject, created_at from messages
    where account_id = ${accountId} and mailbox_id = ${mailboxId} and thread_id = ${threadId}
      and (delivery_status is null or delivery_status = 'sent')
    order by created_at, id limit 200`;
}

export type MessageExtras = {
  sanitization: Record<string, number> | null;
  hidden_text: string | null;
  headers: Record<string, string> | null;
  parse_warnings: string[];
  delivery_status: string | null;
  delivery_error: string | null;
  outcome_assumed: boolean;
  raw_size: number | null;
  remote_ip: string | null;
  helo: string | null;
  mail_from: string | null;
};

export async function messageExtras(db: Db, accountId: string, id: string): Promise<MessageExtras> {
  const [row] = await db<MessageExtras[]>`
    select m.sanitization, m.hidden_text, m.headers, m.parse_warnings, m.delivery_status, m.delivery_error, m.outcome_assumed,
      coalesce(r.size, octet_length(m.raw_outbound)) as raw_size, r.remote_ip, r.helo, r.mail_from
    from messages m left join raw_messages r on r.id = m.raw_message_id
    where m.id = ${id} and m.account_id = ${accountId}
      and (m.delivery_status is null or m.delivery_status = 'sent')`;
  if (!row) throw errors.routeNotFound();
  return row;
}

/** The message as it arrived (inbound) or as it left (outbound), or the one 404. */
export async function rawMessage(svc: Pick<Services, "sql" | "blobs" | "log">, accountId: string, id: string): Promise<Uint8Array> {
  const [row] = await svc.sql`
    select coalesce(r.content, m.raw_outbound) as content, r.blob_key, r.sha256
    from messages m left join raw_messages r on r.id = m.raw_message_id
    where m.id = ${id} and m.account_id = ${accountId}
      and (m.delivery_status is null or m.delivery_status = 'sent')`;
  if (!row || (!row.content && !row.blob_key)) throw errors.routeNotFound();
  const content = await contentBytes(svc, row as never);
  if (content.byteLength === 0) throw errors.routeNotFound();
  return content;
}

/**
 * The list columns of the given messages (a search page's results), keyed by id, within one
 * mailbox of the account: the search result lacks the screening verdicts the badge shows.
 */
export async function mailRowsById(db: Db, accountId: string, mailboxId: string, ids: string[]): Promise<Map<string, MailRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db<MailRow[]>`
    select ${mailRowColumns(db)}
    from messages m
    where m.account_id = ${accountId} and m.mailbox_id = ${mailboxId} and m.id = any(${ids}::text[])
      and (m.delivery_status is null or m.delivery_status = 'sent')`;
  return new Map(rows.map((row) => [row.id, row]));
}
