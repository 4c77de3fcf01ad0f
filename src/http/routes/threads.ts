// GET /api/v1/threads and GET /api/v1/threads/{id}: conversations, additions to the contract (docs/api.md).
import { t } from "elysia";
import type { Services } from "../../core/services.ts";
import { getThread, listThreads, THREAD_MESSAGE_LIMIT } from "../../core/threads.ts";
import { clampLimit } from "../../request/limit.ts";
import { authErrors, ErrorBody, nullable, PathId, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";
import { AttachmentWithText, cursorQuery, NextCursor, ReplyText } from "./reading-models.ts";

const ThreadSummary = strictObject({
  id: t.String(),
  mailbox_id: t.String(),
  subject: t.String({ description: "the subject of the thread's first message" }),
  participants: t.Array(t.String(), { description: "every address in the thread other than the mailbox's own" }),
  message_count: t.Integer(),
  last_message_id: t.String(),
  last_message_at: t.String(),
  snippet: t.String({ description: "the start of the latest message's reply text" }),
});

const ThreadMessage = strictObject({
  id: t.String(),
  direction: t.Union([t.Literal("in"), t.Literal("out")]),
  rfc_message_id: nullable(t.String()),
  in_reply_to: nullable(t.String()),
  from_addr: t.String(),
  to_addr: t.String(),
  subject: t.String(),
  created_at: t.String(),
  body_clean: nullable(t.String()),
  reply_text: ReplyText,
  truncated: t.Boolean(),
  comprehension: nullable(t.Record(t.String(), t.Unknown())),
  spam_risk: nullable(t.Union([t.Literal("low"), t.Literal("high"), t.Literal("error")])),
  virus_risk: nullable(t.Union([t.Literal("low"), t.Literal("high")])),
  attachments: t.Array(AttachmentWithText),
});

const ThreadDetail = strictObject({
  id: t.String(),
  mailbox_id: t.String(),
  subject: t.String(),
  participants: t.Array(t.String()),
  message_count: t.Integer(),
  last_message_at: t.String(),
  messages: t.Array(ThreadMessage, { description: "oldest first" }),
  has_more: t.Boolean({ description: `true when the thread has more than ${THREAD_MESSAGE_LIMIT} messages (the first ones are returned)` }),
});

export const threadRoutes = (svc: Services) =>
  apiRoutes(svc, "threads")
    .get(
      "/threads",
      async ({ principal, query }) => {
        const page = await listThreads(svc.sql, principal, query.mailbox_id, clampLimit(query.limit, 20, 100), query.cursor, query.label);
        return { threads: page.threads, next_cursor: page.nextCursor };
      },
      {
        auth: "read",
        query: strictObject({
          mailbox_id: t.String({ minLength: 1 }),
          limit: t.Optional(t.Integer({ title: "limit", minimum: 1, description: "default 20; values above 100 are clamped to 100" })),
          cursor: cursorQuery,
          label: t.Optional(
            t.String({
              minLength: 1,
              maxLength: 64,
              description:
                "only threads carrying this label: a name any message has; `read` and `archived` only when every message has them",
            }),
          ),
        }),
        response: { 200: strictObject({ threads: t.Array(ThreadSummary), next_cursor: NextCursor }), 400: ErrorBody, ...authErrors },
        detail: {
          summary: "List a mailbox's threads",
          description:
            "Conversations by latest activity, newest first. A mailbox_id that is not the account's yields an empty list; a bound key may " +
            "list only its own mailbox (403 key_scope). `next_cursor` continues with older threads; a thread that gets a new message while " +
            "a client walks moves to the top and is not shown again further down.",
        },
      },
    )
    .get("/threads/:id", ({ principal, params }) => getThread(svc, principal, params.id), {
      auth: "read",
      params: t.Object({ id: PathId }),
      response: { 200: ThreadDetail, ...authErrors, 404: ErrorBody },
      detail: {
        summary: "Get a thread",
        description:
          "The thread's messages in order, inbound and outbound, each with reply_text and its attachments' text. " +
          "404 `thread not found` for a missing id, another account's, or another mailbox's under a bound key.",
      },
    });
