// The accept transaction enqueues process_inbound without add_job's NOTIFY (src/core/jobs.ts) and
// wakes the workers after COMMIT (src/core/job-wakeup.ts): the job row must be the one add_job
// would have made, the first job of a database must create its task row, a copy of an earlier
// message enqueues nothing, and the wake-up carries the number of jobs committed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { receiveForRecipients } from "../../src/core/inbound/recipients.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mime } from "../support/mail-fixtures.ts";

let ctx: TestContext;
let owner: Fixture;

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
});
afterAll(() => ctx.close());

const envelope = { remoteIp: null, helo: null, mailFrom: "lee@example.org" };
const message = (to: string, id: string) =>
  new TextEncoder().encode(mime({ from: "lee@example.org", to, subject: "Job", text: `Hello ${id}`, messageId: `<${id}@example.org>` }));

/** Notifications on jobs:insert until `stop`, each payload's count. */
async function listenForWakeUps(): Promise<{ counts: number[]; stop(): Promise<void> }> {
  const counts: number[] = [];
  const listener = await ctx.sql.listen("jobs:insert", (payload) => counts.push(JSON.parse(payload).count));
  return { counts, stop: () => listener.unlisten() };
}

async function waitFor(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await Bun.sleep(10);
}

test("the first accepted message of a database creates the task row, and its job matches add_job's", async () => {
  const [before] = await ctx.sql`select count(*)::int as n from graphile_worker._private_tasks where identifier = 'process_inbound'`;
  expect(before!.n).toBe(0);
  const inbox = await makeMailbox(ctx, owner, "job-first");
  const [id] = (await receiveForRecipients(ctx.svc, message(inbox.address, "first"), [inbox.address], envelope)).stored;

  const job = (key: string) => ctx.sql`
    select v.*, j.payload, j.is_available, j.job_queue_id from graphile_worker.jobs v
    join graphile_worker._private_jobs j using (id) where v.key = ${key}`;
  const [quiet] = await job(`inbound:${id}`);
  // The same task and key through add_job itself, for comparison.
  await ctx.sql`select graphile_worker.add_job('process_inbound', ${ctx.sql.json({ message_id: "msg_reference" })}::json, job_key => 'inbound:reference')`;
  const [reference] = await job("inbound:reference");

  expect(quiet).toBeDefined();
  expect(quiet!.payload).toEqual({ message_id: id });
  expect(quiet!.task_identifier).toBe("process_inbound");
  for (const column of [
    "task_identifier",
    "queue_name",
    "priority",
    "attempts",
    "max_attempts",
    "locked_at",
    "locked_by",
    "revision",
    "flags",
    "last_error",
    "is_available",
    "job_queue_id",
  ])
    expect([column, quiet![column]]).toEqual([column, reference![column]]);
  expect(Date.parse(quiet!.run_at)).toBeLessThanOrEqual(Date.now() + 1000);
  await ctx.sql`delete from graphile_worker._private_jobs where key = 'inbound:reference'`;
});

test("the workers are woken after COMMIT with the number of jobs; a copy of an earlier message enqueues none", async () => {
  const one = await makeMailbox(ctx, owner, "job-one");
  const two = await makeMailbox(ctx, owner, "job-two");
  const wakeUps = await listenForWakeUps();
  try {
    const raw = message(one.address, "two-mailboxes");
    const first = await receiveForRecipients(ctx.svc, raw, [one.address, two.address], envelope);
    await waitFor(() => wakeUps.counts.reduce((a, b) => a + b, 0) >= 2);
    expect(wakeUps.counts.reduce((a, b) => a + b, 0)).toBe(2);
    const jobs = await ctx.sql`select key from graphile_worker.jobs where key in ${ctx.sql(first.stored.map((id) => `inbound:${id}`))}`;
    expect(jobs).toHaveLength(2);

    // The MTA sends the same bytes again: the earlier ids, no new job, no wake-up.
    const [jobsBefore] = await ctx.sql`select count(*)::int as n from graphile_worker.jobs`;
    const again = await receiveForRecipients(ctx.svc, raw, [one.address, two.address], envelope);
    expect(again.stored).toEqual(first.stored);
    await Bun.sleep(200);
    const [jobsAfter] = await ctx.sql`select count(*)::int as n from graphile_worker.jobs`;
    expect(jobsAfter!.n).toBe(jobsBefore!.n);
    expect(wakeUps.counts.reduce((a, b) => a + b, 0)).toBe(2);
  } finally {
    await wakeUps.stop();
  }
});
