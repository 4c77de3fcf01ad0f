// GET /api/v1/messages, GET /api/v1/messages/{id} and the attachment download.
import { t } from "elysia";
import { getAttachment, getMessage, listMessagesPage } from "../../core/messages.ts";
import type { Services } from "../../core/services.ts";
import { authErrors, ErrorBody, nullable, PathId, strictObject } from "../../request/models.ts";
import { clampLimit } from "../../request/limit.ts";
import { apiRoutes } from "../route-kit.ts";
import { messageHistory } from "../../core/lifecycle-events.ts";
import { HistoryResponse } from "./events.ts";

const Verdict = t.Union([
  t.Literal("pass"),
  t.Literal("fail"),
  t.Literal("softfail"),
  t.Literal("neutral"),
  t.Literal("none"),
  t.Literal("temperror"),
  t.Literal("permerror"),
]);

const Attachment = t.Object(
  { id: t.String(), filename: nullable(t.String()), content_type: t.String(), size: t.Integer(), sha256: t.String() },
  { description: "download with GET /api/v1/messages/{id}/attachments/{attachment_id}" },
);

const MessageDetail = strictObject({
  id: t.String(),
  mailbox_id: t.String(),
  direction: t.Union([t.Literal("in"), t.Literal("out")]),
  provider_message_id: nullable(t.String()),
  rfc_message_id: nullable(t.String()),
  thread_id: t.String(),
  in_reply_to: nullable(t.String()),
  from_addr: t.String(),
  to_addr: t.String(),
  subject: t.String(),
  body_raw: nullable(t.String({ description: "pre-sanitization original, kept for audit" })),
  body_clean: nullable(t.String({ description: "sanitized text" })),
  truncated: t.Boolean(),
  created_at: t.String(),
  comprehension: nullable(t.Record(t.String(), t.Unknown())),
  attachments: t.Array(Attachment),
  auth_results: nullable(strictObject({ spf: Verdict, dkim: Verdict, dmarc: Verdict })),
  spam_risk: nullable(t.Union([t.Literal("low"), t.Literal("high"), t.Literal("error")])),
  virus_risk: nullable(t.Union([t.Literal("low"), t.Literal("high")])),
});

const MessageListItem = strictObject({
  id: t.String(),
  direction: t.Union([t.Literal("in"), t.Literal("out")]),
  from_addr: t.String(),
  to_addr: t.String(),
  subject: t.String(),
  created_at: t.String(),
  comprehension: t.Optional(nullable(strictObject({ status: t.String(), classification: nullable(t.String()) }))),
});

/** Attachments are served as downloads that a browser will neither render nor sniff. */
function attachmentResponse(attachment: { filename: string | null; content_type: string; content: Uint8Array }): Response {
  const filename = attachment.filename ?? "attachment";
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return new Response(attachment.content as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": /^[\w.+-]+\/[\w.+-]+$/.test(attachment.content_type) ? attachment.content_type : "application/octet-stream",
      "content-disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox; default-src 'none'",
    },
  });
}

export const messageRoutes = (svc: Services) =>
  apiRoutes(svc, "messages")
    .get(
      "/messages",
      async ({ principal, query, set }) => {
        const page = await listMessagesPage(svc.sql, principal, query.mailbox_id, clampLimit(query.limit, 50, 100), query.cursor);
        // SPEC's body stays {messages}: the way to older mail travels in a header.
        if (page.nextCursor) set.headers["x-next-cursor"] = page.nextCursor;
        return { messages: page.messages };
      },
      {
        auth: "read",
        query: strictObject({
          mailbox_id: t.String({ minLength: 1 }),
          limit: t.Optional(t.Integer({ title: "limit", minimum: 1, description: "default 50; values above 100 are clamped to 100" })),
          cursor: t.Optional(t.String({ description: "the `x-next-cursor` header of the previous page: continue with older messages" })),
        }),
        response: {
          200: t.Object(
            { messages: t.Array(MessageListItem) },
            {
              additionalProperties: false,
              description: "When older messages may remain, the response carries an `x-next-cursor` header: pass it as `cursor`.",
            },
          ),
          400: ErrorBody,
          ...authErrors,
        },
        detail: {
          summary: "List a mailbox's messages",
          description:
            "Newest first, inbound and outbound. Older mail: when a full page is returned the " +
            "`x-next-cursor` response header holds a cursor; pass it as `cursor` for the next, older page " +
            "(positions, not offsets: mail arriving meanwhile shifts nothing). An invalid cursor is 400. A " +
            "mailbox_id that is not the account's yields an empty list. A bound key may list only its own " +
            "mailbox (403 key_scope).",
        },
      },
    )
    .get("/messages/:id", ({ principal, params }) => getMessage(svc.sql, principal, params.id), {
      auth: "read",
      params: t.Object({ id: PathId }),
      response: { 200: MessageDetail, ...authErrors, 404: ErrorBody },
      detail: {
        summary: "Get a message",
        description: "404 `message not found` for a missing id, another account's, or another mailbox's under a bound key.",
      },
    })
    .get("/messages/:id/events", async ({ principal, params }) => ({ events: await messageHistory(svc.sql, principal, params.id) }), {
      auth: "read",
      params: t.Object({ id: PathId }),
      response: { 200: HistoryResponse, ...authErrors, 404: ErrorBody },
      detail: {
        summary: "What became of a message",
        description:
          "Every step of an outbound message, with its time and detail: its draft's review (draft.pending_approval, " +
          "draft.approved), the send's outcome (message.sent, message.delivered, message.send_failed), and reports that came " +
          "later (message.bounced, message.complained). The id of a send that failed is still answered (the message itself is " +
          "gone). For an inbound message: its message.received. 404 `message not found` as for GET /api/v1/messages/{id}.",
      },
    })
    .get(
      "/messages/:id/attachments/:attachment_id",
      async ({ principal, params }) => attachmentResponse(await getAttachment(svc, principal, params.id, params.attachment_id)),
      {
        auth: "read",
        params: t.Object({ id: PathId, attachment_id: PathId }),
        response: {
          200: t.Any({ description: "the attachment's bytes, served as a download with its content type" }),
          ...authErrors,
          404: ErrorBody,
        },
        detail: {
          summary: "Download an attachment",
          description: "Same authorization and 404 rules as the message; `attachment not found` when the message has no such attachment.",
        },
      },
    );
