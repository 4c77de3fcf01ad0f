// schedule_draft and unschedule_draft: POST /api/v1/drafts/{id}/schedule and /unschedule.
import { t } from "elysia";
import { scheduleDraft, unscheduleDraft } from "../core/outbound/index.ts";
import { strictObject } from "../request/models.ts";
import { defineTool } from "./tool.ts";

export const scheduleDraftTool = defineTool({
  name: "schedule_draft",
  title: "Send a draft later",
  description:
    "Schedule a draft (from create_draft) to be sent at send_at: an ISO time with an offset (2025-03-10T09:00:00Z), or a local time " +
    "(2025-03-10T09:00) with time_zone (IANA, e.g. the recipient's America/New_York; daylight saving is handled). Calling it again " +
    "changes the time. Outcomes: status scheduled: it goes out at scheduled_at by itself, do nothing more (edits until then are " +
    "sent; unschedule_draft cancels). status pending_approval: a human must approve it first (held for a human: do not resend); " +
    "approved before the time it goes out at the time, after it at once. 400: the time is in the past, more than a year ahead, or " +
    "not understood (fix and retry). 409: the draft is already sending, sent or rejected.",
  input: strictObject({
    id: t.String({ minLength: 1, maxLength: 100, description: "the draft id" }),
    send_at: t.String({ minLength: 1, maxLength: 64, description: "ISO 8601 time" }),
    time_zone: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "IANA zone for a local send_at" })),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  endpointClass: "write",
  run: async ({ svc, principal }, args) => ({
    body: await scheduleDraft(svc, principal, args.id, { send_at: args.send_at, ...(args.time_zone ? { time_zone: args.time_zone } : {}) }),
  }),
});

export const unscheduleDraftTool = defineTool({
  name: "unschedule_draft",
  title: "Cancel a draft's scheduled send",
  description:
    "Take a draft's schedule away: it will not go out by itself (it stays a draft, or stays in the approval queue without a time). " +
    "Idempotent. An approval given for the scheduled time is withdrawn. 409: it is already sending or sent.",
  input: strictObject({ id: t.String({ minLength: 1, maxLength: 100, description: "the draft id" }) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  endpointClass: "write",
  run: async ({ svc, principal }, args) => ({ body: await unscheduleDraft(svc, principal, args.id) }),
});
