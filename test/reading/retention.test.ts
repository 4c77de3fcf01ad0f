// Message retention through the real worker: expired messages lose their raw bytes, bodies and
// attachments in batches and keep a tombstone, so threads, events and idempotent replays still
// answer; unexpired messages and accounts without retention are untouched.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { purgeExpiredContent, setAccountRetention } from "../../src/core/retention.ts";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { type Fixture, makeAccount, makeMailbox } from "../support/context.ts";
import { sendMail, waitFor } from "../support/smtp-client.ts";
import { type Stack, startStack, stopStack } from "../support/stack.ts";
import { type Receiver, startReceiver } from "../support/webhook-receiver.ts";

let stack: Stack;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", DELIVERY_TRANSPORT: "local" });
  receiver = await startReceiver();
});
afterAll(async () => {
  await stopStack(stack);
  await receiver.close();
});

async function receive(account: Fixture, address: string, subject: string): Promise<string> {
  await sendMail(stack.smtp.port, {
    from: "alice@example.org",
    to: address,
    subject,
    text: `The body of ${subject}, which retention must remove.`,
    attachments: [{ filename: "notes.txt", content: `attachment of ${subject}` }],
  });
  const row = await waitFor(async () => {
    const [found] = await stack.ctx
      .sql`select id from messages where account_id = ${account.accountId} and subject = ${subject} and processed_at is not null`;
    return found;
  }, `${subject} processed`);
  return row.id as string;
}

const age = (id: string, days: number) =>
  stack.ctx.sql`update messages set created_at = now() - make_interval(days => ${days}) where id = ${id}`;

test("expired messages become tombstones; everything else is kept", async () => {
  const kept = await makeAccount(stack.ctx);
  const keptBox = await makeMailbox(stack.ctx, kept, "keeps-everything");
  const limited = await makeAccount(stack.ctx);
  const limitedBox = await makeMailbox(stack.ctx, limited, "keeps-a-week");
  expect(await setAccountRetention(stack.ctx.sql, limited, 7)).toEqual({ id: limited.accountId, retention_days: 7 });
  await setWebhook(stack.ctx.svc, { accountId: limited.accountId, url: receiver.url, secret: "whsec_retention_test_secret_0123456789" });

  const old = await receive(limited, limitedBox.address, "Old enough to purge");
  const recent = await receive(limited, limitedBox.address, "Recent, kept");
  const otherOld = await receive(kept, keptBox.address, "Old but no retention");
  await receiver.waitForRequests(2);
  await waitFor(
    async () =>
      (await stack.ctx.sql`select 1 from webhook_deliveries where account_id = ${limited.accountId} and state = 'pending'`).length === 0,
    "deliveries settled",
  );
  // A send with a client_id, then aged: its idempotent replay must still answer the same.
  const sendBody = {
    mailbox_id: limitedBox.id,
    to: "bob@example.net",
    subject: "Sent long ago",
    text: "Outbound body.",
    client_id: "retention-replay-1",
  };
  const first = await stack.ctx.request("POST", "/api/v1/send", { key: limited.key, body: sendBody });
  expect(first.status).toBe(201);
  const before = (await stack.ctx.request("GET", `/api/v1/messages/${old}`, { key: limited.key })).body;
  expect(before.attachments).toHaveLength(1);
  for (const id of [old, otherOld, first.body.id]) await age(id, 10);
  await age(recent, 3);

  // The hourly cron task, run now through the real Graphile Worker.
  await stack.ctx.sql`select graphile_worker.add_job('purge_expired_content', '{}'::json)`;
  await waitFor(
    async () => (await stack.ctx.sql`select 1 from messages where id = ${old} and purged_at is not null`).length === 1,
    "old message purged",
  );

  const [tomb] = await stack.ctx.sql`
    select m.thread_id, m.subject, m.from_addr, m.spam_risk, m.body_raw, m.body_clean, m.reply_text, m.headers, m.created_at,
      m.processed_at, octet_length(r.content) as raw_size, r.sha256,
      (select count(*)::int from attachments a where a.message_id = m.id) as attachments
    from messages m join raw_messages r on r.id = m.raw_message_id where m.id = ${old}`;
  expect(tomb!.thread_id).toBe(before.thread_id);
  expect(tomb!.subject).toBe("Old enough to purge");
  expect(tomb!.spam_risk).toBe(before.spam_risk);
  expect(tomb!.processed_at).not.toBeNull();
  expect([tomb!.body_raw, tomb!.body_clean, tomb!.reply_text, tomb!.headers]).toEqual([null, null, null, null]);
  expect(tomb!.raw_size).toBe(0);
  expect(tomb!.attachments).toBe(0);
  // The search document keeps the tombstone's subject and sender, not the body or attachment words.
  const [words] = await stack.ctx.sql`
    select search @@ 'purge'::tsquery as subject, search @@ 'retention'::tsquery as body, search @@ 'attachment'::tsquery as attached
    from messages where id = ${old}`;
  expect(words).toEqual({ subject: true, body: false, attached: false });

  // Reads still resolve: the message, its thread, its event (same id, content gone).
  const after = await stack.ctx.request("GET", `/api/v1/messages/${old}`, { key: limited.key });
  expect(after.status).toBe(200);
  expect(after.body.id).toBe(old);
  expect(after.body.thread_id).toBe(before.thread_id);
  expect(after.body.attachments).toEqual([]);
  expect(after.text).not.toContain("which retention must remove");
  const thread = await stack.ctx.request("GET", `/api/v1/threads/${before.thread_id}`, { key: limited.key });
  expect(thread.status).toBe(200);
  expect(thread.text).toContain(old);
  const [event] = await stack.ctx.sql`select id, payload from event_log where message_id = ${old}`;
  const payload = JSON.parse(event!.payload);
  expect([payload.event_id, payload.message_id, payload.thread_id, payload.body, payload.extraction]).toEqual([
    event!.id,
    old,
    before.thread_id,
    "",
    null,
  ]);
  expect(event!.payload).not.toContain("which retention must remove");
  const [hook] = await stack.ctx.sql`select payload from webhook_events where message_id = ${old}`;
  expect(hook!.payload).not.toContain("which retention must remove");
  const events = await stack.ctx.request("GET", "/api/v1/events", { key: limited.key });
  expect(events.status).toBe(200);
  expect(events.text).toContain(event!.id);

  // The outbound send is a tombstone too, and its replay answers as before.
  const [sent] = await stack.ctx.sql`select purged_at, raw_outbound, body_clean from messages where id = ${first.body.id}`;
  expect(sent!.purged_at).not.toBeNull();
  expect([sent!.raw_outbound, sent!.body_clean]).toEqual([null, null]);
  const replay = await stack.ctx.request("POST", "/api/v1/send", { key: limited.key, body: sendBody });
  expect(replay.body.id).toBe(first.body.id);

  // Within retention, and in an account with none (and no service default): untouched.
  for (const id of [recent, otherOld]) {
    const [row] = await stack.ctx
      .sql`select purged_at, body_clean, (select count(*)::int from attachments where message_id = ${id}) as attachments from messages where id = ${id}`;
    expect(row!.purged_at).toBeNull();
    expect(row!.body_clean).toContain("which retention must remove");
    expect(row!.attachments).toBe(1);
  }

  // The service default (RETENTION_DAYS) reaches the account without its own setting, batch by batch.
  const more = [await receive(kept, keptBox.address, "Default one"), await receive(kept, keptBox.address, "Default two")];
  for (const id of more) await age(id, 40);
  expect(await purgeExpiredContent(stack.ctx.sql, 30, { batch: 1 })).toBe(2);
  const purged = await stack.ctx.sql`select id from messages where account_id = ${kept.accountId} and purged_at is not null order by id`;
  expect(purged.map((row) => row.id).sort()).toEqual([...more].sort());
  // Nothing left to do: a second run purges nothing.
  expect(await purgeExpiredContent(stack.ctx.sql, 30)).toBe(0);
});
