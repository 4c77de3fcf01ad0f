// Send later: POST /api/v1/drafts/{id}/schedule and unschedule, sent by the send_scheduled_draft
// task through the real Graphile Worker to a loopback SMTP sink. Times are asserted by order (not
// sent before its time, sent once), never by how fast the machine is.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { approveDraft } from "../../src/core/outbound/drafts.ts";
import { startWorker } from "../../worker/runner.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox } from "../support/context.ts";
import { type Outbound, startOutbound } from "../support/outbound.ts";
import { waitFor } from "../support/smtp-client.ts";

let o: Outbound;

beforeAll(async () => {
  o = await startOutbound();
});

afterAll(async () => {
  await o.close();
});

async function draft(mailboxId = o.mailbox.id, key = o.owner.key, to = "later@example.org"): Promise<string> {
  const created = await o.ctx.request("POST", "/api/v1/drafts", {
    key,
    body: { mailbox_id: mailboxId, to, subject: "Reminder", text: "See you Monday" },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

const schedule = (id: string, body: unknown, key = o.owner.key) => o.ctx.request("POST", `/api/v1/drafts/${id}/schedule`, { key, body });
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const jobsFor = async (id: string) =>
  (await o.ctx.sql`select count(*)::int as n from graphile_worker.jobs where key = ${`schedule:${id}`}`)[0]!.n as number;

/** The next `month`/`day` 09:00 local date string at least a week ahead (always within a year). */
function nextLocal(month: number, day: number): string {
  const now = new Date();
  let year = now.getUTCFullYear();
  if (Date.UTC(year, month - 1, day) < now.getTime() + 7 * 86400_000) year++;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}T09:00`;
}

describe("scheduling", () => {
  test("local time in an IANA zone becomes the right instant, daylight saving included", async () => {
    const id = await draft();
    const winter = await schedule(id, { send_at: nextLocal(1, 15), time_zone: "America/New_York" });
    expect(winter.status).toBe(200);
    expect(winter.body).toEqual({
      draft_id: id,
      status: "scheduled",
      scheduled_at: `${nextLocal(1, 15)}:00.000Z`.replace("T09:00", "T14:00"),
      time_zone: "America/New_York",
      approved: false,
    });
    const summer = await schedule(id, { send_at: nextLocal(7, 15), time_zone: "America/New_York" });
    expect(summer.body.scheduled_at).toBe(`${nextLocal(7, 15)}:00.000Z`.replace("T09:00", "T13:00"));
    // Rescheduling replaced the job: one per draft.
    expect(await jobsFor(id)).toBe(1);
    const withOffset = await schedule(id, { send_at: `${nextLocal(3, 1)}+01:00` });
    expect(withOffset.body.scheduled_at).toBe(`${nextLocal(3, 1)}:00.000Z`.replace("T09:00", "T08:00"));
  });

  test("400 for the past, a local time without a zone, an unknown zone, more than a year ahead, or not a time", async () => {
    const id = await draft();
    const refused = async (body: unknown) => {
      const answer = await schedule(id, body);
      expect(answer.status).toBe(400);
      return answer.body.error as string;
    };
    expect(await refused({ send_at: "2020-01-01T00:00:00Z" })).toBe("send_at must be in the future");
    expect(await refused({ send_at: nextLocal(1, 15) })).toContain("needs time_zone");
    expect(await refused({ send_at: nextLocal(1, 15), time_zone: "Mars/Olympus_Mons" })).toContain("not a known IANA time zone");
    expect(await refused({ send_at: "2999-01-01T00:00:00Z" })).toContain("within 365 days");
    expect(await refused({ send_at: "next monday" })).toContain("ISO 8601");
    expect(await jobsFor(id)).toBe(0);
  });

  test("unschedule (POST or DELETE) takes the job away and says so in the draft's events", async () => {
    const id = await draft();
    await schedule(id, { send_at: inSeconds(3600) });
    expect(await jobsFor(id)).toBe(1);
    const undone = await o.ctx.request("POST", `/api/v1/drafts/${id}/unschedule`, { key: o.owner.key });
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({ draft_id: id, status: "draft", scheduled_at: null });
    expect(await jobsFor(id)).toBe(0);
    await schedule(id, { send_at: inSeconds(3600) });
    const deleted = await o.ctx.request("DELETE", `/api/v1/drafts/${id}/schedule`, { key: o.owner.key });
    expect(deleted.body.status).toBe("draft");
    expect(await jobsFor(id)).toBe(0);
    const history = await o.ctx.request("GET", `/api/v1/drafts/${id}/events`, { key: o.owner.key });
    expect(history.body.events.map((e: any) => e.type)).toEqual([
      "draft.scheduled",
      "draft.unscheduled",
      "draft.scheduled",
      "draft.unscheduled",
    ]);
  });
});

describe("sending at the time", () => {
  test("a scheduled draft is not sent before its time, survives a worker that was not running, and is sent once by two workers", async () => {
    const id = await draft(o.mailbox.id, o.owner.key, "once@example.org");
    const answer = await schedule(id, { send_at: inSeconds(2) });
    const at = new Date(answer.body.scheduled_at).getTime();
    // No worker runs until after its time (a restart): the job is a row and waits.
    await Bun.sleep(Math.max(0, at - Date.now()) + 200);
    expect(o.sink.messages.filter((m) => m.to.includes("once@example.org"))).toHaveLength(0);
    const workers = await Promise.all([
      startWorker(o.ctx.svc, o.ctx.config.databaseUrl!),
      startWorker(o.ctx.svc, o.ctx.config.databaseUrl!),
    ]);
    try {
      await waitFor(async () => o.sink.messages.some((m) => m.to.includes("once@example.org")), "the scheduled send");
      await Bun.sleep(500);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    expect(o.sink.messages.filter((m) => m.to.includes("once@example.org"))).toHaveLength(1);
    const [sent] = await o.ctx.sql`select created_at from messages where draft_id = ${id}`;
    expect(new Date(sent!.created_at).getTime()).toBeGreaterThanOrEqual(at);
    const history = await o.ctx.request("GET", `/api/v1/drafts/${id}/events`, { key: o.owner.key });
    expect(history.body.events.map((e: any) => e.type)).toEqual(["draft.scheduled", "message.sent"]);
    expect((await o.ctx.request("GET", `/api/v1/drafts/${id}`, { key: o.owner.key })).status).toBe(404);
  }, 30_000);

  test("a mailbox that requires approval: queued now, approved before its time, frozen, then sent at the time", async () => {
    const reviewed = await makeMailbox(o.ctx, o.owner, "reviewed-later");
    await o.ctx.sql`update mailboxes set require_approval = true where id = ${reviewed.id}`;
    const id = await draft(reviewed.id, o.owner.key, "approved-later@example.org");
    const answer = await schedule(id, { send_at: inSeconds(3) });
    expect(answer.body).toMatchObject({ status: "pending_approval", approved: false });
    const approved = await approveDraft(o.ctx.svc, { accountId: o.owner.accountId, name: "reviewer" }, id);
    expect(approved).toMatchObject({ kind: "scheduled", draftId: id });
    // What was approved is what goes out.
    const edit = await o.ctx.request("PATCH", `/api/v1/drafts/${id}`, { key: o.owner.key, body: { text: "changed after approval" } });
    expect(edit.status).toBe(409);
    expect(o.sink.messages.some((m) => m.to.includes("approved-later@example.org"))).toBe(false);
    const worker = await startWorker(o.ctx.svc, o.ctx.config.databaseUrl!);
    try {
      await waitFor(async () => o.sink.messages.find((m) => m.to.includes("approved-later@example.org")), "the approved scheduled send");
    } finally {
      await worker.stop();
    }
    const raw = o.sink.messages.find((m) => m.to.includes("approved-later@example.org"))!.raw.toString();
    expect(raw).toContain("See you Monday");
    const history = await o.ctx.request("GET", `/api/v1/drafts/${id}/events`, { key: o.owner.key });
    expect(history.body.events.map((e: any) => e.type)).toEqual([
      "draft.pending_approval",
      "draft.scheduled",
      "draft.approved",
      "message.sent",
    ]);
  }, 30_000);
});

describe("who may schedule", () => {
  let stranger: Fixture;
  let id: string;
  beforeAll(async () => {
    stranger = await makeAccount(o.ctx);
    id = await draft();
  });

  test("another account and a key bound to another mailbox get the same 404 as a missing draft", async () => {
    const missing = await schedule("drf_missing", { send_at: inSeconds(3600) });
    expect(missing.status).toBe(404);
    const other = await makeMailbox(o.ctx, o.owner, "schedule-other");
    const bound = await makeKey(o.ctx, { accountId: o.owner.accountId, scope: "api", mailboxId: other.id });
    for (const key of [stranger.key, bound]) {
      const answer = await schedule(id, { send_at: inSeconds(3600) }, key);
      expect(answer.status).toBe(404);
      expect(answer.text).toBe(missing.text);
      expect((await o.ctx.request("POST", `/api/v1/drafts/${id}/unschedule`, { key })).text).toBe(missing.text);
    }
    expect(await jobsFor(id)).toBe(0);
  });

  test("a key that cannot send gets 403 key_scope; no key 401; a sent draft is 404", async () => {
    const readOnly = await makeKey(o.ctx, { accountId: o.owner.accountId, scope: "api", canSend: false });
    const refused = await schedule(id, { send_at: inSeconds(3600) }, readOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("key_scope");
    expect((await o.ctx.request("POST", `/api/v1/drafts/${id}/schedule`, { body: { send_at: inSeconds(3600) } })).status).toBe(401);
    const sent = await o.ctx.request("POST", `/api/v1/drafts/${id}/send`, { key: o.owner.key });
    expect(sent.status).toBe(201);
    expect((await schedule(id, { send_at: inSeconds(3600) })).status).toBe(404);
  });
});
