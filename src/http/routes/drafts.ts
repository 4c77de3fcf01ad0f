// The draft endpoints: create, list, get, edit, delete and send.
import { t } from "elysia";
import {
  createDraft,
  deleteDraft,
  getDraft,
  listDrafts,
  MAX_SCHEDULE_DAYS,
  scheduleDraft,
  sendDraft,
  unscheduleDraft,
  updateDraft,
} from "../../core/outbound/index.ts";
import type { Services } from "../../core/services.ts";
import { draftHistory } from "../../core/webhooks/index.ts";
import { authErrors, ConflictError, ErrorBody, nullable, PathId, strictObject } from "../../request/models.ts";
import {
  clientId,
  DeliveryFailure,
  OutgoingFields,
  PendingApproval,
  PermanentRejection,
  SendBlocked,
} from "../../request/outgoing-models.ts";
import { answerOfOutcome } from "../../request/send-answers.ts";
import { apiRoutes } from "../route-kit.ts";
import { HistoryResponse } from "./events.ts";

const nullableString = t.Union([t.String(), t.Null()]);
const Draft = strictObject({
  id: t.String(),
  mailbox_id: t.String(),
  status: t.Union([t.Literal("draft"), t.Literal("pending_approval"), t.Literal("sending"), t.Literal("sent"), t.Literal("rejected")]),
  to: nullableString,
  subject: t.String(),
  text: t.String(),
  reply_to_message_id: nullableString,
  requires_human: t.Boolean(),
  thread_id: t.String(),
  created_at: t.String(),
  updated_at: t.String(),
});
const Id = t.Object({ id: PathId });
const notFound = { 404: ErrorBody };

const ScheduleView = strictObject({
  draft_id: t.String(),
  status: t.UnionEnum(["scheduled", "pending_approval", "draft"], {
    description: "scheduled: goes out at scheduled_at; pending_approval: waits for a human first; draft: not scheduled",
  }),
  scheduled_at: nullable(t.String({ description: "ISO 8601, UTC" })),
  time_zone: nullable(t.String()),
  approved: t.Boolean({ description: "a human approved it for its time: it goes out without asking again" }),
});

export const draftRoutes = (svc: Services) =>
  apiRoutes(svc, "drafts")
    .post(
      "/drafts",
      async ({ principal, body, set }) => {
        set.status = 201;
        return createDraft(svc, principal, body);
      },
      {
        auth: "write",
        body: strictObject({
          ...OutgoingFields,
          client_id: clientId("kept with the draft, not an idempotency key; must not start with `draft:`"),
        }),
        response: {
          201: strictObject({ id: t.String(), status: t.Literal("draft") }),
          400: ErrorBody,
          ...authErrors,
          ...notFound,
          413: ErrorBody,
        },
        detail: {
          summary: "Create a draft",
          description:
            "Same body and validation as send. No idempotency: a retried create can duplicate a draft. Never " +
            "queued for approval at creation.",
        },
      },
    )
    .get("/drafts", async ({ principal, query }) => ({ drafts: await listDrafts(svc.sql, principal, query.mailbox_id) }), {
      auth: "read",
      query: strictObject({ mailbox_id: t.String({ minLength: 1 }) }),
      response: { 200: strictObject({ drafts: t.Array(Draft) }), 400: ErrorBody, ...authErrors },
      detail: { summary: "List live drafts", description: "Non-tombstoned, non-terminal drafts of the mailbox, newest first." },
    })
    .get("/drafts/:id/events", async ({ principal, params }) => ({ events: await draftHistory(svc.sql, principal, params.id) }), {
      auth: "read",
      params: t.Object({ id: PathId }),
      response: { 200: HistoryResponse, ...authErrors, 404: ErrorBody },
      detail: {
        summary: "What became of a draft",
        description:
          "The draft's review and sends, oldest first (draft.pending_approval with its held_reason, draft.approved, " +
          "draft.rejected with who and why, message.sent, message.send_failed ...), also once the draft is sent or rejected. " +
          "404 `draft not found` for another account's draft or another mailbox's under a bound key.",
      },
    })
    .get("/drafts/:id", ({ principal, params }) => getDraft(svc.sql, principal, params.id), {
      auth: "read",
      params: Id,
      response: { 200: Draft, ...authErrors, ...notFound },
      detail: { summary: "Get a draft", description: "404 `draft not found` for missing, foreign and tombstoned drafts alike." },
    })
    .patch("/drafts/:id", ({ principal, params, body }) => updateDraft(svc.sql, principal, params.id, body ?? {}), {
      auth: "write",
      params: Id,
      body: t.Optional(
        strictObject({
          to: t.Optional(t.String({ minLength: 1, maxLength: 998 })),
          subject: t.Optional(t.String({ maxLength: 998 })),
          text: t.Optional(t.String({ minLength: 1, maxLength: 500_000 })),
          reply_to_message_id: t.Optional(t.Unknown({ description: "immutable: supplying it is 400" })),
        }),
      ),
      response: { 200: Draft, 400: ErrorBody, ...authErrors, ...notFound, 409: ConflictError, 413: ErrorBody },
      detail: {
        summary: "Edit a draft",
        description:
          "Omitted fields keep their value; the recipient is re-validated. Only a `draft` can be edited: " +
          "pending_approval, sending, sent and rejected drafts answer 409 approval_conflict.",
      },
    })
    .delete(
      "/drafts/:id",
      async ({ principal, params, set }) => {
        await deleteDraft(svc.sql, principal, params.id);
        set.status = 204;
      },
      {
        auth: "write",
        params: Id,
        response: { 204: t.Void({ description: "deleted" }), ...authErrors, ...notFound, 409: ConflictError },
        detail: { summary: "Delete a draft", description: "Soft-deletes a `draft`; any other live status answers 409 approval_conflict." },
      },
    )
    .post(
      "/drafts/:id/send",
      async ({ principal, params, set }) => {
        const response = answerOfOutcome(await sendDraft(svc, principal, params.id));
        set.status = response.status;
        return response.body as never;
      },
      {
        auth: "write",
        params: Id,
        response: {
          201: strictObject({ id: t.String(), draft_id: t.String(), thread_id: t.String(), provider_message_id: t.String() }),
          202: PendingApproval,
          400: PermanentRejection,
          ...authErrors,
          402: ErrorBody,
          403: t.Union([SendBlocked, authErrors[403]]),
          ...notFound,
          409: ConflictError,
          422: ErrorBody,
          502: DeliveryFailure,
        },
        detail: {
          summary: "Send a draft",
          description:
            "The mailbox's current require_approval decides: 202 queues it (again 202 when already queued), " +
            "otherwise it is delivered (201). A permanent rejection (400) returns the draft to `draft` with " +
            "the error recorded. On 502 the draft stays `sending`: a transient failure is retried by the " +
            "service, an unknown outcome is reconciled. 422 when the draft has no recipient or the recipient " +
            "is suppressed.",
        },
      },
    )
    .post("/drafts/:id/schedule", ({ principal, params, body }) => scheduleDraft(svc, principal, params.id, body), {
      auth: "write",
      params: Id,
      body: strictObject({
        send_at: t.String({
          minLength: 1,
          maxLength: 64,
          description: "ISO 8601: with an offset (2025-03-10T09:00:00Z, 2025-03-10T09:00+01:00), or local time with time_zone",
        }),
        time_zone: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "IANA zone, e.g. America/New_York" })),
      }),
      response: {
        200: ScheduleView,
        400: ErrorBody,
        ...authErrors,
        403: t.Union([SendBlocked, authErrors[403]]),
        ...notFound,
        409: ConflictError,
        422: ErrorBody,
      },
      detail: {
        summary: "Schedule a draft to be sent later",
        description:
          `Sends the draft at \`send_at\` (in the future, within ${MAX_SCHEDULE_DAYS} days; local time needs \`time_zone\`, ` +
          "daylight saving included). Scheduling again replaces the time. When the mailbox requires approval (or the loop guard " +
          "holds the reply) the draft enters the approval queue now: approved before its time it goes out at the time " +
          "(`approved` true, its text then frozen: PATCH is 409), approved after it goes out at once. Edits before then are " +
          "sent. Send lists and suppressions are checked at the time of sending; a refusal then is recorded on the draft. " +
          "409 `approval_conflict` for a draft that is sending, sent or rejected; 422 without a recipient.",
      },
    })
    .post("/drafts/:id/unschedule", ({ principal, params }) => unscheduleDraft(svc, principal, params.id), {
      auth: "write",
      params: Id,
      response: { 200: ScheduleView, ...authErrors, ...notFound, 409: ConflictError },
      detail: {
        summary: "Take a draft's schedule away",
        description:
          "Idempotent. The draft stays (in `draft`, or in the approval queue without a time); an approval given for the " +
          "scheduled time is withdrawn. Same as DELETE /api/v1/drafts/{id}/schedule.",
      },
    })
    .delete("/drafts/:id/schedule", ({ principal, params }) => unscheduleDraft(svc, principal, params.id), {
      auth: "write",
      params: Id,
      response: { 200: ScheduleView, ...authErrors, ...notFound, 409: ConflictError },
      detail: { summary: "Take a draft's schedule away", description: "Same as POST /api/v1/drafts/{id}/unschedule." },
    });
