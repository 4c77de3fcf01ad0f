// Full-text search within one mailbox over subject, sender, clean body and attachment text (the
// `search` column, 'simple' configuration: no stemming or stop words, so any language matches word
// for word). Query syntax is websearch_to_tsquery's ("a phrase", -exclude, or) plus `word*` for a
// prefix. Ranked by relevance (among the newest RANK_WINDOW matches), then newest; without a
// query, newest first. Walked with a cursor holding the last result's (rank, time, id), never an
// offset.

import type { Db } from "../db.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { errors } from "./errors.ts";
import { parseIsoTime } from "./iso-time.ts";
import { messageLabelFilter } from "./labels.ts";
import { assertMailboxAllowed, type Principal } from "./principal.ts";

type Fragment = ReturnType<Db["unsafe"]>;

export type SearchInput = {
  mailboxId: string;
  q?: string;
  from?: string;
  after?: string;
  before?: string;
  hasAttachment?: boolean;
  label?: string;
  /** an inbox label (labels.ts); `label` is the classification */
  hasLabel?: string;
  direction?: "in" | "out";
  limit: number;
  cursor?: string;
};

export type SearchResult = {
  id: string;
  thread_id: string;
  direction: "in" | "out";
  from_addr: string;
  to_addr: string;
  subject: string;
  created_at: string;
  comprehension: { status: string; classification: string | null } | null;
  has_attachments: boolean;
  /** relevance (higher is better); 0 without a query */
  rank: number;
  /** the best matching passage, matches between ** marks; the start of the body without a query */
  snippet: string;
};

export const MAX_QUERY_LENGTH = 500;
/** How many of the newest matches a ranked search orders by relevance. */
export const RANK_WINDOW = 1000;
const MAX_PREFIX_TERMS = 8;

/** Splits `word*` prefix terms from the rest, which websearch_to_tsquery reads. */
export function parseQuery(q: string): { websearch: string; prefixes: string[] } {
  const prefixes: string[] = [];
  const rest = q.replace(/(^|\s)([^\s"*]+)\*(?=\s|$)/gu, (_match, lead: string, term: string) => {
    if (prefixes.length < MAX_PREFIX_TERMS) prefixes.push(term.toLowerCase());
    return lead;
  });
  return { websearch: rest.trim(), prefixes };
}

/** A tsquery text of quoted prefix terms: 'term':* & … (quotes and backslashes escaped). */
function prefixQueryText(prefixes: string[]): string {
  return prefixes.map((term) => `'${term.replace(/\\/g, "\\\\").replace(/'/g, "''")}':*`).join(" & ");
}

function timestampOrThrow(value: string | undefined, name: string): string | null {
  if (value === undefined) return null;
  const time = parseIsoTime(value);
  if (!time) throw errors.validation(`${name} must be an ISO 8601 date or date-time`);
  return time.toISOString();
}

export async function searchMessages(
  db: Db,
  principal: Principal,
  input: SearchInput,
): Promise<{ results: SearchResult[]; nextCursor: string | null }> {
  assertMailboxAllowed(principal, input.mailboxId);
  const q = (input.q ?? "").trim();
  if (q.length > MAX_QUERY_LENGTH) throw errors.validation(`q must be at most ${MAX_QUERY_LENGTH} characters`);
  const after = timestampOrThrow(input.after, "after");
  const before = timestampOrThrow(input.before, "before");
  const position = decodeCursor("s", input.cursor);
  const { websearch, prefixes } = parseQuery(q);
  const ranked = websearch !== "" || prefixes.length > 0;
  const from = input.from?.trim().toLowerCase() || null;

  const tsquery = ranked
    ? db`(${websearch ? db`websearch_to_tsquery('simple', ${websearch})` : db`''::tsquery`}
        && ${prefixes.length ? db`to_tsquery('simple', ${prefixQueryText(prefixes)})` : db`''::tsquery`})`
    : null;
  // Weights for D, C, B, A: subject and sender count most, then body, then attachments.
  const rank = tsquery ? db`ts_rank('{0.1, 0.3, 0.6, 1.0}', c.search, ${tsquery})` : db`0::real`;
  const afterPosition = position
    ? db`and (${rank}, c.created_at, c.id) < (${position.rank!}::real,
        timestamptz 'epoch' + ${position.micros}::bigint * interval '1 microsecond', ${position.id}::text)`
    : db``;
  const filters = db`
    m.mailbox_id = ${input.mailboxId} and m.account_id = ${principal.accountId}
      and (m.delivery_status is null or m.delivery_status = 'sent')
      ${tsquery ? db`and m.search @@ ${tsquery}` : db``}
      ${from ? db`and (lower(m.from_addr) = ${from} or split_part(lower(m.from_addr), '@', 2) = ${from.replace(/^@/, "")})` : db``}
      ${after ? db`and m.created_at >= ${after}::timestamptz` : db``}
      ${before ? db`and m.created_at < ${before}::timestamptz` : db``}
      ${input.hasAttachment === undefined ? db`` : db`and exists (select 1 from attachments a where a.message_id = m.id) = ${input.hasAttachment}`}
      ${input.label ? db`and m.comprehension->'classification'->>'label' = ${input.label}` : db``}
      ${input.direction ? db`and m.direction = ${input.direction}` : db``}
      ${input.hasLabel ? db`and ${messageLabelFilter(db, input.hasLabel)}` : db``}`;
  // Ranking reads every candidate's search document, so it is bounded: the newest RANK_WINDOW
  // matches are ranked (the mailbox's index finds them newest first, however common the words).
  // Older matches are reached by narrowing the query or with `before`. The page's own columns
  // are read only for the page.
  const candidates = tsquery
    ? db`(select m.id, m.created_at, m.search from messages m where ${filters} order by m.created_at desc, m.id desc limit ${RANK_WINDOW})`
    : db`(select m.id, m.created_at, null::tsvector as search from messages m where ${filters})`;
  const rows = await withoutJit(
    db,
    (tx) => tx`
    with page as (
      select c.id, c.created_at, ${rank} as rank
      from ${candidates} as c
      where true ${afterPosition}
      order by rank desc, c.created_at desc, c.id desc
      limit ${input.limit}
    )
    select m.id, m.thread_id, m.direction, m.from_addr, m.to_addr, m.subject, m.created_at, left(m.body_clean, 400) as body_clean,
      case when m.comprehension is null then null
        else jsonb_build_object('status', m.comprehension->>'status', 'classification', m.comprehension->'classification'->>'label')
      end as comprehension,
      exists (select 1 from attachments a where a.message_id = m.id) as has_attachments,
      page.rank, page.rank::text as rank_text,
      (extract(epoch from m.created_at) * 1000000)::bigint::text as micros
    from page join messages m on m.id = page.id
    order by page.rank desc, page.created_at desc, page.id desc`,
  );

  const snippets = await headlines(
    db,
    rows.map((row) => row.id as string),
    tsquery,
  );
  const results = rows.map(
    (row): SearchResult => ({
      id: row.id,
      thread_id: row.thread_id,
      direction: row.direction,
      from_addr: row.from_addr,
      to_addr: row.to_addr,
      subject: row.subject,
      created_at: row.created_at,
      comprehension: row.comprehension,
      has_attachments: row.has_attachments,
      rank: Number(row.rank),
      snippet: (snippets.get(row.id) ?? (row.body_clean ?? "").slice(0, 200)).replace(/\s+/g, " ").trim(),
    }),
  );
  const last = rows.length === input.limit ? rows[rows.length - 1] : undefined;
  return { results, nextCursor: last ? encodeCursor("s", { micros: last.micros, id: last.id, rank: last.rank_text }) : null };
}

/**
 * The planner prices the candidate scan at its full length although LIMIT stops it early, which
 * crosses jit_above_cost: compiling then costs more than the query itself. Off for
 * this query only.
 */
async function withoutJit<T>(db: Db, run: (tx: Db) => Promise<T>): Promise<T> {
  if (!("begin" in db)) return run(db);
  return (await db.begin(async (tx) => {
    await tx`set local jit = off`;
    return run(tx);
  })) as T;
}

/** The best passage of each result (body, else attachment text), computed for the page only: ts_headline reparses the text. */
async function headlines(db: Db, ids: string[], tsquery: Fragment | null): Promise<Map<string, string>> {
  if (!tsquery || ids.length === 0) return new Map();
  const rows = await db`
    select id, ts_headline('simple', left(coalesce(nullif(body_clean, ''), attachment_text, ''), 20000), ${tsquery},
      'StartSel=**, StopSel=**, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "') as snippet
    from messages where id = any(${ids}::text[])`;
  return new Map(rows.map((row) => [row.id as string, row.snippet as string]));
}
