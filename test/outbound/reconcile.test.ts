// The reconcile task never leaves a draft stuck: a redelivery whose outcome is unknown is followed
// by another reconcile job, which gives the draft back with the doubt (never records it as sent).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Outbound, runWorkerUntil, startOutbound } from "../support/outbound.ts";

let o: Outbound;
beforeAll(async () => {
  o = await startOutbound({ RECONCILE_GRACE_S: "0", DELIVERY_RETRY_S: "0", DELIVERY_RETRY_LIMIT: "5" });
});
afterAll(() => o.close());

const req = (method: string, path: string, body?: unknown) => o.ctx.request(method, `/api/v1${path}`, { key: o.owner.key, body });

test("a transient failure, then a redelivery with an unknown outcome: the draft comes back, never stuck, never sent", async () => {
  const draft = await req("POST", "/drafts", { mailbox_id: o.mailbox.id, to: "alice@example.org", subject: "s", text: "t" });
  o.sink.mode = "defer451";
  expect((await req("POST", `/drafts/${draft.body.id}/send`)).status).toBe(502);
  // The service's retry reaches a server that drops the connection after the data: unknown.
  o.sink.mode = "drop-after-data";
  const settled = await runWorkerUntil(
    o.ctx,
    async () => {
      const [row] = await o.ctx.sql`
      select m.delivery_status, m.outcome_assumed, m.delivery_attempts, d.status as draft_status
      from messages m join drafts d on d.id = m.draft_id where m.draft_id = ${draft.body.id}`;
      return row && row.delivery_attempts >= 2 && row.draft_status === "draft" ? row : null;
    },
    "the unknown redelivery to be reconciled",
  );
  expect(settled).toMatchObject({ delivery_status: "unknown", outcome_assumed: false, draft_status: "draft" });
  o.sink.mode = "accept";
});
