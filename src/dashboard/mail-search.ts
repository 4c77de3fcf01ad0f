// The Mail page's search: the form's fields read from the query string, core's searchMessages
// run as the signed-in human over the one mailbox the page shows, and the highlighted snippet made
// safe. The page (pages/mail.ts) renders the rows; this file only decides what they are.
import { CoreError } from "../core/errors.ts";
import { MAX_QUERY_LENGTH, searchMessages } from "../core/search.ts";
import type { Db } from "../db.ts";
import { errorText, statusOf } from "../request/error-answers.ts";
import { type Html, html, reveal } from "./html.ts";
import { type Direction, type MailRow, mailRowsById } from "./mail-queries.ts";
import { dashboardPrincipal } from "./principal.ts";
import type { Session } from "./session.ts";

export type SearchParams = {
  q: string;
  from: string;
  /** yes, no, or "" for either */
  attachment: "" | "yes" | "no";
  /** YYYY-MM-DD, inclusive, or "" */
  since: string;
  until: string;
  cursor: string | null;
};

export type SearchHit = { row: MailRow; snippet: Html };

export type SearchOutcome = { ok: true; hits: SearchHit[]; next: string | null; ranked: boolean } | { ok: false; error: string };

const MAX_FROM = 320;
// Longer than core's limit, so an over-long cursor reaches core and is refused rather than dropped.
const MAX_CURSOR = 600;
// Longer than a date, so a date with anything after it is refused rather than cut to fit.
const MAX_DAY = 40;
// ts_headline marks one word at a time, so a marked span is short and has no space in it.
const MAX_MARKED = 100;

function field(url: URL, name: string, max: number): string {
  return (url.searchParams.get(name) ?? "").trim().slice(0, max);
}

/** The search fields of the Mail form, as given (bounded; checked by runSearch). */
export function readSearch(url: URL): SearchParams {
  const attachment = url.searchParams.get("attachment");
  const cursor = url.searchParams.get("cursor");
  return {
    // One character over the limit is kept so core refuses it with its own message.
    q: field(url, "q", MAX_QUERY_LENGTH + 1),
    from: field(url, "from", MAX_FROM + 1),
    attachment: attachment === "yes" || attachment === "no" ? attachment : "",
    since: field(url, "since", MAX_DAY),
    until: field(url, "until", MAX_DAY),
    cursor: cursor ? cursor.slice(0, MAX_CURSOR) : null,
  };
}

/** Whether the form asks for a search rather than the plain newest-first list. */
export function isSearch(params: SearchParams): boolean {
  return params.q !== "" || params.from !== "" || params.attachment !== "" || params.since !== "" || params.until !== "";
}

/** The query string of a search page (the cursor only when given). */
export function searchQuery(mailboxId: string, direction: Direction, params: SearchParams, cursor: string | null = null): URLSearchParams {
  const query = new URLSearchParams({ mailbox_id: mailboxId });
  if (direction !== "all") query.set("direction", direction);
  for (const name of ["q", "from", "attachment", "since", "until"] as const) if (params[name]) query.set(name, params[name]);
  if (cursor) query.set("cursor", cursor);
  return query;
}

function day(value: string, name: string): Date | string {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  return Number.isNaN(time) ? `${name} must be a date (YYYY-MM-DD).` : new Date(time);
}

/**
 * The snippet with core's `**` highlight marks turned into <mark>, everything else escaped (and
 * invisible characters shown as markers). A body may contain `**` itself: a pair is taken as a
 * highlight only when what it encloses is one short word, as ts_headline's always is; any other
 * `**` stays text. Either way nothing in the snippet can become markup.
 */
export function highlight(snippet: string): Html {
  const parts: Html[] = [];
  let plain = "";
  let at = 0;
  while (at < snippet.length) {
    const open = snippet.indexOf("**", at);
    if (open === -1) break;
    const close = snippet.indexOf("**", open + 2);
    const word = close === -1 ? "" : snippet.slice(open + 2, close);
    if (word === "" || word.length > MAX_MARKED || /\s/.test(word)) {
      plain += snippet.slice(at, open + 2);
      at = open + 2;
      continue;
    }
    parts.push(reveal(plain + snippet.slice(at, open)), html`<mark class="hit">${reveal(word)}</mark>`);
    plain = "";
    at = close + 2;
  }
  parts.push(reveal(plain + snippet.slice(at)));
  return html`${parts}`;
}

/** One page of results, or the reason the form's values were refused (a 400 page). */
export async function runSearch(
  db: Db,
  session: Session,
  mailboxId: string,
  direction: Direction,
  params: SearchParams,
  limit: number,
): Promise<SearchOutcome> {
  if (params.from.length > MAX_FROM) return { ok: false, error: `From is at most ${MAX_FROM} characters.` };
  const since = params.since ? day(params.since, "Since") : null;
  const until = params.until ? day(params.until, "Until") : null;
  if (typeof since === "string") return { ok: false, error: since };
  if (typeof until === "string") return { ok: false, error: until };
  // "Until" names a day a person means to include: core's `before` is exclusive, so the next day.
  const before = until ? new Date(until.getTime() + 86_400_000).toISOString() : undefined;
  try {
    const page = await searchMessages(db, await dashboardPrincipal(db, session), {
      mailboxId,
      q: params.q || undefined,
      from: params.from || undefined,
      after: since ? since.toISOString() : undefined,
      before,
      hasAttachment: params.attachment === "" ? undefined : params.attachment === "yes",
      direction: direction === "all" ? undefined : direction,
      limit,
      cursor: params.cursor ?? undefined,
    });
    const rows = await mailRowsById(
      db,
      session.accountId,
      mailboxId,
      page.results.map((r) => r.id),
    );
    const ranked = params.q !== "";
    const hits = page.results.flatMap((result): SearchHit[] => {
      const row = rows.get(result.id);
      // Without a query the snippet is the body's start, whose `**` are the sender's, not marks.
      return row ? [{ row, snippet: ranked ? highlight(result.snippet) : reveal(result.snippet) }] : [];
    });
    return { ok: true, hits, next: page.nextCursor, ranked };
  } catch (error) {
    // Core's 400s (query too long, bad cursor) are the person's to fix; anything else is ours.
    if (error instanceof CoreError && statusOf(error) === 400) return { ok: false, error: `${errorText(error)}.` };
    throw error;
  }
}
