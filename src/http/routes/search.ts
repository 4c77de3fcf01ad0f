// GET /api/v1/search: ranked full-text search within one mailbox (an addition to the contract, docs/api.md).
import { t } from "elysia";
import { MAX_QUERY_LENGTH, searchMessages } from "../../core/search.ts";
import type { Services } from "../../core/services.ts";
import { clampLimit } from "../../request/limit.ts";
import { authErrors, ErrorBody, nullable, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";
import { cursorQuery, NextCursor } from "./reading-models.ts";

const SearchResult = strictObject({
  id: t.String(),
  thread_id: t.String(),
  direction: t.Union([t.Literal("in"), t.Literal("out")]),
  from_addr: t.String(),
  to_addr: t.String(),
  subject: t.String(),
  created_at: t.String(),
  comprehension: nullable(strictObject({ status: t.String(), classification: nullable(t.String()) })),
  has_attachments: t.Boolean(),
  rank: t.Number({ description: "relevance, higher first; 0 when no q is given" }),
  snippet: t.String({ description: "the best matching passage, matches between ** marks" }),
});

export const SearchQuery = strictObject({
  mailbox_id: t.String({ minLength: 1 }),
  q: t.Optional(
    t.String({
      maxLength: MAX_QUERY_LENGTH,
      description:
        'words (all must match), "a phrase", -excluded, a or b, and word* for a prefix; over subject, ' +
        "sender, body and attachment text. Omit to filter only (newest first)",
    }),
  ),
  from: t.Optional(t.String({ maxLength: 320, description: "sender address, or a domain (example.com) for anyone there" })),
  after: t.Optional(t.String({ maxLength: 40, description: "ISO 8601 date or date-time: messages at or after it" })),
  before: t.Optional(t.String({ maxLength: 40, description: "ISO 8601 date or date-time: messages before it" })),
  has_attachment: t.Optional(t.Boolean()),
  label: t.Optional(t.String({ maxLength: 100, description: "comprehension classification label, e.g. transactional_receipt" })),
  direction: t.Optional(t.Union([t.Literal("in"), t.Literal("out")])),
  has_label: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 64,
      description:
        "only messages carrying this inbox label (`unread`, `read`, `archived` or a name of yours; `label` is the classification)",
    }),
  ),
  limit: t.Optional(t.Integer({ title: "limit", minimum: 1, description: "default 20; values above 100 are clamped to 100" })),
  cursor: cursorQuery,
});

export const searchRoutes = (svc: Services) =>
  apiRoutes(svc, "search").get(
    "/search",
    async ({ principal, query }) => {
      const page = await searchMessages(svc.sql, principal, {
        mailboxId: query.mailbox_id,
        q: query.q,
        from: query.from,
        after: query.after,
        before: query.before,
        hasAttachment: query.has_attachment,
        label: query.label,
        direction: query.direction,
        hasLabel: query.has_label,
        limit: clampLimit(query.limit, 20, 100),
        cursor: query.cursor,
      });
      return { results: page.results, next_cursor: page.nextCursor };
    },
    {
      auth: "read",
      query: SearchQuery,
      response: { 200: strictObject({ results: t.Array(SearchResult), next_cursor: NextCursor }), 400: ErrorBody, ...authErrors },
      detail: {
        summary: "Search a mailbox",
        description:
          "Full-text search (PostgreSQL, language-neutral 'simple' configuration: words match as written, in any language) over subject, " +
          "sender, clean body and attachment text, ranked by relevance then newest, with filters. A mailbox_id that is not the account's " +
          "yields no results; a bound key may search only its own mailbox (403 key_scope). 400 for a bad date or cursor.",
      },
    },
  );
