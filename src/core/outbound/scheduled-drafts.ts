// Send later: POST /api/v1/drafts/{id}/schedule and its undoing, and the send_scheduled_draft task
// that sends at the time.
//
//   draft ──schedule──▶ draft + scheduled_at ──(time)──▶ sending ──▶ sent
//   (mailbox requires approval, or the loop guard holds it)
//   draft ──schedule──▶ pending_approval + scheduled_at ──approve before the time──▶ draft, approved
//                                                      ──(time)──▶ sending ──▶ sent
//                       pending_approval + scheduled_at ──approve after the time──▶ sending at once
//
// The job is Graphile Worker's: run_at the time, job key `schedule:<draft id>` (rescheduling
// replaces it, unscheduling removes it), committed with the draft's row. It survives restarts
// (it is a row), and it runs once across worker copies (Graphile Worker locks a job to one worker,
// and the send claims the draft with a conditional update: a second run finds it sending or sent).
// The job carries the time it was made for; a job that finds another time (rescheduled) or none
// (unscheduled, sent, deleted) does nothing.
import type { Db, Tx } from "../../db.ts";
import { CoreError, errors } from "../errors.ts";
import { findMailbox } from "../mailboxes.ts";
import type { Principal, Tenant } from "../principal.ts";
import type { Services } from "../services.ts";
import { recordLifecycleEvent } from "../webhooks/index.ts";
import { type DraftRow, draftEventBase } from "./draft-rows.ts";
import { conflictOrMissing, deliverDraft, findDraft, holdForApproval, visibleDraft } from "./drafts.ts";
import { loopGuardReason } from "./loop-guard.ts";
import { assertSendingEntitled, resolveMailbox } from "./outgoing.ts";

export const MAX_SCHEDULE_DAYS = 365;
const ISO_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?$/;
const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

export type ScheduleView = {
  draft_id: string;
  /** scheduled: sends at scheduled_at; pending_approval: waits for a human first; draft: not scheduled */
  status: "scheduled" | "pending_approval" | "draft";
  scheduled_at: string | null;
  time_zone: string | null;
  /** a human approved it for this time: it goes out without asking again */
  approved: boolean;
};

/** A timestamp as the driver gives it (a Date, or text), as ISO 8601 UTC. */
export const isoOf = (value: Date | string | null | undefined): string | null => (value == null ? null : new Date(value).toISOString());

function view(row: DraftRow): ScheduleView {
  return {
    draft_id: row.id,
    status: row.status === "pending_approval" ? "pending_approval" : row.scheduled_at ? "scheduled" : "draft",
    scheduled_at: isoOf(row.scheduled_at),
    time_zone: row.schedule_time_zone,
    approved: row.approved_at !== null,
  };
}

export const scheduleJobKey = (draftId: string) => `schedule:${draftId}`;

/**
 * The instant a send_at names: with an offset (or Z) as it says; without one, as local time in
 * `timeZone` (an IANA name, required then), converted by PostgreSQL's time zone database, daylight
 * saving included. 400 for anything else, for the past, and for more than a year ahead.
 */
async function instantOf(db: Db, sendAt: string, timeZone: string | null): Promise<string> {
  if (timeZone !== null && !/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/.test(timeZone))
    throw errors.validation("time_zone must be an IANA time zone name such as Europe/Paris");
  if (timeZone !== null) {
    const [known] = await db`select 1 from pg_timezone_names where name = ${timeZone}`;
    if (!known) throw errors.validation(`time_zone '${timeZone}' is not a known IANA time zone`);
  }
  let rows: { at: unknown; future: boolean; near: boolean }[];
  if (ISO_OFFSET.test(sendAt)) {
    rows = await db`select ${sendAt}::timestamptz as at, ${sendAt}::timestamptz > now() as future,
      ${sendAt}::timestamptz < now() + make_interval(days => ${MAX_SCHEDULE_DAYS}) as near`;
  } else if (ISO_LOCAL.test(sendAt)) {
    if (timeZone === null) throw errors.validation("send_at without an offset needs time_zone (e.g. 2025-03-10T09:00 with Europe/Paris)");
    rows = await db`
      with t as (select (${sendAt}::timestamp at time zone ${timeZone}) as at)
      select at, at > now() as future, at < now() + make_interval(days => ${MAX_SCHEDULE_DAYS}) as near from t`;
  } else {
    throw errors.validation("send_at must be an ISO 8601 time (2025-03-10T09:00:00Z, 2025-03-10T09:00+01:00, or local with time_zone)");
  }
  const [row] = rows;
  if (!row?.future) throw errors.validation("send_at must be in the future");
  if (!row.near) throw errors.validation(`send_at must be within ${MAX_SCHEDULE_DAYS} days`);
  return isoOf(row.at as string)!;
}

/**
 * Schedules (or reschedules) a draft. A mailbox that requires approval, or a reply the loop guard
 * holds, puts it in the approval queue now, so a human can approve it ahead of its time.
 */
export async function scheduleDraft(
  svc: Services,
  principal: Principal,
  id: string,
  body: { send_at: string; time_zone?: string },
): Promise<ScheduleView> {
  const draft = await visibleDraft(svc.sql, principal, id);
  if (draft.status !== "draft" && draft.status !== "pending_approval") throw errors.approvalConflict();
  if (!draft.to) throw errors.draftWithoutRecipient();
  const mailbox = await resolveMailbox(svc.sql, principal, draft.mailbox_id);
  assertSendingEntitled(principal.plan, mailbox);
  const at = await instantOf(svc.sql, body.send_at, body.time_zone ?? null);
  const loopReason =
    draft.status === "draft" && !draft.approved_at
      ? await loopGuardReason(svc.sql, { accountId: draft.account_id }, { messageId: draft.reply_to_message_id, threadId: draft.thread_id })
      : null;
  const scheduled = await svc.sql.begin(async (tx) => {
    const [row] = await tx.unsafe<DraftRow[]>(
      `update drafts set scheduled_at = $2, schedule_time_zone = $3, updated_at = now()
       where id = $1 and status in ('draft', 'pending_approval') and deleted_at is null
       returning id`,
      [id, at, body.time_zone ?? null] as never[],
    );
    if (!row) return null;
    await tx`
      select graphile_worker.add_job('send_scheduled_draft', json_build_object('draft_id', ${id}::text, 'at', ${at}::text),
        job_key => ${scheduleJobKey(id)}::text, run_at => ${at}::timestamptz, max_attempts => 10)`;
    if (draft.status === "draft" && !draft.approved_at && (mailbox.require_approval || loopReason))
      await holdForApproval(tx, id, loopReason);
    const current = (await findDraft(tx, principal, id))!;
    await recordLifecycleEvent(tx, {
      ...draftEventBase(current),
      type: "draft.scheduled",
      detail: { scheduled_at: at, time_zone: body.time_zone ?? null, needs_approval: current.status === "pending_approval" },
    });
    return current;
  });
  if (!scheduled) return conflictOrMissing(svc.sql, principal, id);
  svc.log.info("draft.scheduled", { draft_id: id, scheduled_at: at });
  return view(scheduled);
}

/** Takes the schedule away (idempotent). A draft approved for its time needs approval again. */
export async function unscheduleDraft(svc: Services, principal: Principal, id: string): Promise<ScheduleView> {
  const draft = await visibleDraft(svc.sql, principal, id);
  if (draft.status !== "draft" && draft.status !== "pending_approval") throw errors.approvalConflict();
  if (!draft.scheduled_at) return view(draft);
  const row = await svc.sql.begin(async (tx) => {
    const [updated] = await tx.unsafe<DraftRow[]>(
      `update drafts set scheduled_at = null, schedule_time_zone = null, approved_at = null, updated_at = now()
       where id = $1 and status in ('draft', 'pending_approval') and deleted_at is null and scheduled_at is not null
       returning id`,
      [id],
    );
    if (!updated) return null;
    await tx`select graphile_worker.remove_job(${scheduleJobKey(id)})`;
    const current = (await findDraft(tx, principal, id))!;
    await recordLifecycleEvent(tx, {
      ...draftEventBase(current),
      type: "draft.unscheduled",
      detail: { was_scheduled_at: isoOf(draft.scheduled_at) },
    });
    return current;
  });
  return view(row ?? (await visibleDraft(svc.sql, principal, id)));
}

/**
 * The send_scheduled_draft task. Not the draft's time any more (rescheduled, unscheduled), or not
 * a draft (deleted, already sent, waiting for a human): nothing. Otherwise it sends as draft send
 * does: approved already, or asks approval now when the mailbox requires it (approval then sends
 * at once). A refusal (send list, suppression, quota, no recipient) is written on the draft as
 * its last_error, and the schedule ends; a delivery failure follows the send pipeline's rules.
 */
/**
 * `explain` words a refusal as the caller of the API would read it (the edge's answer table), for
 * the draft's last_error.
 */
export async function sendScheduledDraft(svc: Services, draftId: string, at: string, explain: (error: CoreError) => string): Promise<void> {
  const [row] = await svc.sql<(DraftRow & { plan: "free" | "paid" })[]>`
    select d.id, d.account_id, d.mailbox_id, d.status, d.scheduled_at, d.approved_at, d.decided_by, d.deleted_at,
      d.reply_to_message_id, d.thread_id, a.plan
    from drafts d join accounts a on a.id = d.account_id where d.id = ${draftId}`;
  if (!row || row.deleted_at || !row.scheduled_at || isoOf(row.scheduled_at) !== at || row.status !== "draft") {
    svc.log.info("draft.scheduled_skipped", { draft_id: draftId, status: row?.status ?? null });
    return;
  }
  try {
    const mailbox = await findMailbox(svc.sql, { accountId: row.account_id }, row.mailbox_id);
    if (!mailbox) throw errors.notFound("mailbox");
    assertSendingEntitled(row.plan, mailbox);
    if (!row.approved_at) {
      const loopReason = await loopGuardReason(
        svc.sql,
        { accountId: row.account_id },
        { messageId: row.reply_to_message_id, threadId: row.thread_id },
      );
      if (mailbox.require_approval || loopReason) {
        await svc.sql.begin((tx: Tx) => holdForApproval(tx, draftId, loopReason));
        svc.log.info("draft.scheduled_needs_approval", { draft_id: draftId });
        return;
      }
    }
    const result = await deliverDraft(svc, draftId, { accountId: row.account_id }, "draft", row.approved_at ? row.decided_by : null);
    svc.log.info("draft.scheduled_sent", { draft_id: draftId, outcome: result.kind });
  } catch (error) {
    if (!(error instanceof CoreError)) throw error; // the job retries
    const reason = `scheduled send refused: ${explain(error)}`;
    await svc.sql`
      update drafts set last_error = ${reason}, scheduled_at = null, approved_at = null, updated_at = now()
      where id = ${draftId} and status = 'draft'`;
    svc.log.warn("draft.scheduled_refused", { draft_id: draftId, code: error.code });
  }
}

export type ScheduledRow = {
  id: string;
  mailbox_id: string;
  to: string | null;
  subject: string;
  status: string;
  scheduled_at: string;
  schedule_time_zone: string | null;
  approved_at: string | null;
};

/** The account's scheduled mail, soonest first (the dashboard's list). */
export async function listScheduled(db: Db, tenant: Tenant, limit = 100): Promise<ScheduledRow[]> {
  const { accountId } = tenant;
  return db<ScheduledRow[]>`
    select id, mailbox_id, to_addr as "to", subject, status, scheduled_at, schedule_time_zone, approved_at from drafts
    where account_id = ${accountId} and scheduled_at is not null and deleted_at is null and status in ('draft', 'pending_approval')
    order by scheduled_at, id limit ${limit}`;
}
