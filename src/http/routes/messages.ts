// GET /api/v1/messages, GET /api/v1/messages/{id} and the attachment download.
import { t } from "elysia";
import { eventHubFor, MAX_WAIT_SECONDS, waitForMessage } from "../../core/events/index.ts";
import { getAttachment, getMessage, listMessagesPage } from "../../core/messages.ts";
import type { Services } from "../../core/services.ts";
import { messageHistory } from "../../core/webhooks/index.ts";
import { clampLimit } from "../../request/limit.ts";
import { authErrors, ErrorBody, nullable, PathId, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";
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

export const WaitedMessage = strictObject({
  id: t.String(),
  mailbox_id: t.String(),
  thread_id: t.String(),
  from_addr: t.String(),
  to_addr: t.String(),
  subject: t.String(),
  created_at: t.String(),
  verification_codes: t.Array(t.String(), { description: "one-time codes found in the subject and body" }),
  confirmation_links: t.Array(t.String(), { description: "links that sign in, verify, confirm or activate" }),
  password_reset_links: t.Array(t.String()),
  comprehension_status: t.String(),
  injection_risk: t.Boolean({ description: "screened as a prompt-injection risk: nothing was extracted from it" }),
  warning: nullable(t.String()),
});

export const WaitResponse = t.Union([
  strictObject(
    { status: t.Literal("found"), cursor: t.String({ description: "pass as `after` to wait for the next one" }), message: WaitedMessage },
    "a matching message",
  ),
  strictObject(
    {
      status: t.Literal("timeout"),
      cursor: t.String({ description: "pass as `after` to keep waiting without missing anything" }),
      waited_ms: t.Integer(),
      retry: t.String(),
    },
    "nothing matched within the timeout",
  ),
]);

export const messageRoutes = (svc: Services) =>
  apiRoutes(svc, "messages")
    .get(
      "/messages",
      async ({ principal, query, set }) => {
        const page = await listMessagesPage(
          svc.sql,
          principal,
          query.mailbox_id,
          clampLimit(query.limit, 50, 100),
          query.cursor,
          query.label,
        );
        // The contract's body (docs/api.md) stays {messages}: the way to older mail travels in a header.
        if (page.nextCursor) set.headers["x-next-cursor"] = page.nextCursor;
        return { messages: page.messages };
      },
      {
        auth: "read",
        query: strictObject({
          mailbox_id: t.String({ minLength: 1 }),
          limit: t.Optional(t.Integer({ title: "limit", minimum: 1, description: "default 50; values above 100 are clamped to 100" })),
          cursor: t.Optional(t.String({ description: "the `x-next-cursor` header of the previous page: continue with older messages" })),
          label: t.Optional(
            t.String({
              minLength: 1,
              maxLength: 64,
              description: "only messages carrying this label (`unread`, `read`, `archived` or a name of yours); absent: all messages",
            }),
          ),
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
    .get(
      "/messages/wait",
      ({ principal, query, request }) =>
        waitForMessage(
          svc,
          eventHubFor(svc),
          principal,
          {
            mailboxId: query.mailbox_id,
            from: query.from,
            subjectContains: query.subject_contains,
            threadId: query.thread_id,
            after: query.after,
            since: query.since,
            timeoutSeconds: query.timeout_s,
          },
          request.signal,
        ),
      {
        auth: "read",
        query: strictObject({
          mailbox_id: t.String({ minLength: 1 }),
          from: t.Optional(t.String({ maxLength: 320, description: "the sender: an address, or a domain (its subdomains match too)" })),
          subject_contains: t.Optional(t.String({ maxLength: 320, description: "case-insensitive text the subject contains" })),
          thread_id: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
          after: t.Optional(t.String({ maxLength: 32, description: "a cursor this API returned: only mail after it" })),
          since: t.Optional(t.String({ maxLength: 40, description: "ISO 8601 time: only mail that arrived at or after it" })),
          timeout_s: t.Optional(
            t.Number({ minimum: 0, maximum: MAX_WAIT_SECONDS, description: `seconds to wait, default 30, at most ${MAX_WAIT_SECONDS}` }),
          ),
        }),
        response: { 200: WaitResponse, 400: ErrorBody, ...authErrors, 404: ErrorBody },
        detail: {
          summary: "Wait for a message (long poll)",
          description:
            "Returns the first screened message of the mailbox that matches the filters (sender address or domain, subject text, " +
            "thread, arrived after `after` or at/after `since`; with neither, mail from now on), with its one-time codes and " +
            "confirmation links up front. Waits up to `timeout_s` (default 30, at most 60) and then answers 200 " +
            '`{status: "timeout", cursor}`: call again with `after=cursor` to keep waiting without missing anything. Mail screened ' +
            "as a prompt-injection risk is returned with `injection_risk: true`, a warning and nothing extracted; mail quarantined as " +
            "a virus, or as spam unless the mailbox delivers spam, is never returned. Wakes on the event log's notifications " +
            "(it holds across API copies). 404 `mailbox not found` for another account's mailbox; a bound key may wait on its own " +
            "mailbox only (403 key_scope).",
        },
      },
    )
    .get("/messages/:id", ({ principal, params }) => getMessage(svc, principal, params.id), {
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
