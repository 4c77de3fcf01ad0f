// The outcome's events go out with the COMMIT right behind them (recordOutcome, dispatch.ts): the
// outcome and its events still commit together or not at all.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Outbound, startOutbound } from "../support/outbound.ts";

let o: Outbound;
beforeAll(async () => {
  o = await startOutbound();
});
afterAll(() => o.close());

const message = async (subject: string) => {
  const [row] = await o.ctx.sql`
    select m.id, m.delivery_status, m.final_dot_at is not null as final_dot,
      exists (select 1 from graphile_worker.jobs j where j.key = 'reconcile:' || m.id) as reconcile_job,
      (select array_agg(e.type order by e.position) from event_log e where e.message_id = m.id) as events
    from messages m where m.subject = ${subject}`;
  return row;
};

test("a sent outcome commits with its message.sent event", async () => {
  const sent = await o.send({ mailbox_id: o.mailbox.id, to: "alice@example.org", subject: "commits together", text: "t" });
  expect(sent.status).toBe(201);
  expect(await message("commits together")).toMatchObject({
    delivery_status: "sent",
    reconcile_job: false,
    events: ["message.sent"],
  });
});

test("when the event append fails, the outcome is rolled back with it and the send is left to reconciliation", async () => {
  await o.ctx.sql.unsafe(`
    create function refuse_marked_event() returns trigger language plpgsql as $$
    begin
      if new.payload like '%refuse this event%' then raise exception 'event refused by the test'; end if;
      return new;
    end $$;
    create trigger refuse_marked_event before insert on event_log for each row execute function refuse_marked_event();`);
  try {
    const sent = await o.send({ mailbox_id: o.mailbox.id, to: "alice@example.org", subject: "refuse this event", text: "t" });
    expect(sent.status).toBe(500);
    // Delivered (the sink has it), but nothing of the outcome stayed: still in flight past the
    // final dot, its reconcile job in place, no event.
    expect(o.sink.messages.some((m) => m.raw.toString().includes("refuse this event"))).toBe(true);
    expect(await message("refuse this event")).toMatchObject({
      delivery_status: "sending",
      final_dot: true,
      reconcile_job: true,
      events: null,
    });
  } finally {
    await o.ctx.sql.unsafe("drop trigger refuse_marked_event on event_log; drop function refuse_marked_event()");
  }
});
