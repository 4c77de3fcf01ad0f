// client_id idempotency on POST /api/v1/send: replay, conflict, in progress, retry after a
// transient failure, reconciliation of an unknown outcome through the real worker, and a race of
// twenty requests that must deliver exactly once.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { updateMailboxSettings } from "../../src/core/mailboxes.ts";
import { payloadHash } from "../../src/core/outbound/idempotency.ts";
import { startWorker } from "../../worker/runner.ts";
import { makeAccount, makeMailbox, makeTestContext } from "../support/context.ts";
import { type Outbound, runWorkerUntil, startOutbound, waitFor, withSendHeldAtQuota } from "../support/outbound.ts";

// Subprocesses, the worker and a loaded CI machine need more than the default 5 s.
setDefaultTimeout(30_000);

let o: Outbound;
const CONFLICT = { code: "idempotency_conflict", error: "client_id was already used with a different payload" };
const IN_PROGRESS = { code: "idempotency_in_progress", error: "a send with this client_id is still in progress; retry shortly" };

beforeAll(async () => {
  // Reconciliation may resolve an unknown outcome at once; the worker runs only when a test starts it.
  o = await startOutbound({ RECONCILE_GRACE_S: "0" });
});

afterAll(async () => {
  await o.close();
});

afterEach(() => {
  o.sink.mode = "accept";
});

const body = (clientId: string, extra: Record<string, unknown> = {}) => ({
  mailbox_id: o.mailbox.id,
  to: "alice@example.org",
  subject: "Invoice",
  text: "Please pay.",
  client_id: clientId,
  ...extra,
});

async function outboundCount(mailboxId = o.mailbox.id): Promise<number> {
  const [row] = await o.ctx.sql`select count(*)::int as n from messages where mailbox_id = ${mailboxId} and direction = 'out'`;
  return row!.n;
}

describe("after a completed send", () => {
  test("the same client_id and payload answers 200 with the stored body, byte for byte, and sends nothing", async () => {
    const first = await o.send(body("replay-1"));
    expect(first.status).toBe(201);
    const atSink = o.sink.messages.length;
    for (let i = 0; i < 3; i++) {
      const again = await o.send(body("replay-1"));
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
    }
    expect(o.sink.messages.length).toBe(atSink);
  });

  test("the same client_id with a different payload is 409 idempotency_conflict", async () => {
    const first = await o.send(body("conflict-1"));
    expect(first.status).toBe(201);
    const atSink = o.sink.messages.length;
    for (const changed of [{ text: "Please pay now." }, { to: "bob@example.org" }, { subject: "Invoice 2" }, { subject: undefined }]) {
      const response = await o.send(body("conflict-1", changed));
      expect(response.status).toBe(409);
      expect(response.body).toEqual(CONFLICT);
    }
    expect(o.sink.messages.length).toBe(atSink);
  });

  test("a client_id is scoped to its mailbox and account", async () => {
    const first = await o.send(body("scoped-1"));
    expect(first.status).toBe(201);
    const sibling = await makeMailbox(o.ctx, o.owner, "idem-sibling");
    const inSibling = await o.send({ ...body("scoped-1"), mailbox_id: sibling.id });
    expect(inSibling.status).toBe(201);
    expect(inSibling.body.id).not.toBe(first.body.id);
    const stranger = await makeAccount(o.ctx);
    const strangerBox = await makeMailbox(o.ctx, stranger, "idem-stranger");
    const inStranger = await o.send({ ...body("scoped-1"), mailbox_id: strangerBox.id }, stranger.key);
    expect(inStranger.status).toBe(201);
  });
});

describe("while a send is running", () => {
  test("a second request with its client_id is 409 idempotency_in_progress; afterwards it replays", async () => {
    let during: Awaited<ReturnType<Outbound["send"]>> | null = null;
    let conflicting: Awaited<ReturnType<Outbound["send"]>> | null = null;
    const first = await withSendHeldAtQuota(
      o.ctx,
      o.owner.accountId,
      () => o.send(body("running-1")),
      async () => {
        during = await o.send(body("running-1"));
        // The payload check comes first: another payload is a conflict even now.
        conflicting = await o.send(body("running-1", { text: "other" }));
      },
    );
    expect(during!.status).toBe(409);
    expect(during!.body).toEqual(IN_PROGRESS);
    expect(conflicting!.body).toEqual(CONFLICT);
    expect(first.status).toBe(201);
    const after = await o.send(body("running-1"));
    expect(after.status).toBe(200);
    expect(after.text).toBe(first.text);
  });
});

describe("after a failure", () => {
  test("after a transient 502 a retry sends again, and only the delivered send is stored", async () => {
    const atSink = o.sink.messages.length;
    const stored = await outboundCount();
    o.sink.mode = "defer451";
    const failed = await o.send(body("transient-1"));
    expect(failed.status).toBe(502);
    expect(failed.body.retryable).toBe(true);
    expect(o.sink.messages.length).toBe(atSink);
    expect(await outboundCount()).toBe(stored);

    o.sink.mode = "accept";
    const retried = await o.send(body("transient-1"));
    expect(retried.status).toBe(201);
    expect(o.sink.messages.length).toBe(atSink + 1);
    expect(await outboundCount()).toBe(stored + 1);
    const replay = await o.send(body("transient-1"));
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(retried.text);
  });

  test("a permanent 400 is stored for the client_id: the retry answers it again without sending", async () => {
    o.sink.mode = "reject550";
    const failed = await o.send(body("permanent-1"));
    expect(failed.status).toBe(400);
    o.sink.mode = "accept";
    const atSink = o.sink.messages.length;
    const retry = await o.send(body("permanent-1"));
    expect(retry.status).toBe(400);
    expect(retry.text).toBe(failed.text);
    expect(o.sink.messages.length).toBe(atSink);
  });

  test("after delivery_outcome_unknown: the same 502 to every retry, never 200 sent, and nothing sent again", async () => {
    const atSink = o.sink.messages.length;
    o.sink.mode = "drop-after-data";
    const unknown = await o.send(body("unknown-1"));
    expect(unknown.status).toBe(502);
    expect(unknown.body.code).toBe("delivery_outcome_unknown");
    expect(unknown.body.retryable).toBe(false);
    o.sink.mode = "accept";

    const retry = await o.send(body("unknown-1"));
    expect(retry.status).toBe(502);
    expect(retry.body).toEqual(unknown.body);
    expect(o.sink.messages.length).toBe(atSink + 1);

    const [pending] = await o.ctx
      .sql`select id, thread_id from messages where mailbox_id = ${o.mailbox.id} and delivery_status = 'unknown'`;
    expect(pending).toBeDefined();
    // No job is left for it, and a worker changes nothing: it stays unknown, never "assumed sent".
    await runWorkerUntil(o.ctx, async () => true, "one worker start");
    const [row] = await o.ctx.sql`select delivery_status, outcome_assumed from messages where id = ${pending!.id}`;
    expect(row).toMatchObject({ delivery_status: "unknown", outcome_assumed: false });
    const again = await o.send(body("unknown-1"));
    expect(again.status).toBe(502);
    expect(again.body).toEqual(unknown.body);
    expect(o.sink.messages.length).toBe(atSink + 1);
  });
});

describe("an abandoned claim", () => {
  async function abandon(clientId: string, messageId: string | null) {
    const hash = await payloadHash(body(clientId));
    await o.ctx.sql`
      insert into idempotency_keys (account_id, mailbox_id, client_id, payload_hash, state, message_id, locked_until)
      values (${o.owner.accountId}, ${o.mailbox.id}, ${clientId}, ${hash}, 'in_progress', ${messageId}, now() - interval '1 second')`;
  }

  test("a holder that died before delivery started is taken over once its claim expires", async () => {
    await abandon("abandoned-1", null);
    const atSink = o.sink.messages.length;
    const response = await o.send(body("abandoned-1"));
    expect(response.status).toBe(201);
    expect(o.sink.messages.length).toBe(atSink + 1);
    expect((await o.send(body("abandoned-1"))).status).toBe(200);
  });

  test("a holder that died after recording its message is left to reconciliation (409 in progress)", async () => {
    const [earlier] = await o.ctx.sql`select id from messages where mailbox_id = ${o.mailbox.id} and direction = 'out' limit 1`;
    await abandon("abandoned-2", earlier!.id);
    const atSink = o.sink.messages.length;
    const response = await o.send(body("abandoned-2"));
    expect(response.status).toBe(409);
    expect(response.body).toEqual(IN_PROGRESS);
    expect(o.sink.messages.length).toBe(atSink);
  });
});

describe("a slow holder whose claim expired", () => {
  test("the request that took the claim over sends; the slow one gets 409 and sends nothing", async () => {
    const atSink = o.sink.messages.length;
    let takeover: Promise<Awaited<ReturnType<typeof o.send>>> | null = null;
    const slow = await withSendHeldAtQuota(
      o.ctx,
      o.owner.accountId,
      () => o.send(body("slow-holder")),
      async () => {
        // The slow request holds its claim but has not attached a message: expire it, as time would.
        await o.ctx.sql`update idempotency_keys set locked_until = now() - interval '1 second' where client_id = 'slow-holder'`;
        takeover = o.send(body("slow-holder"));
        takeover.catch(() => {});
        await waitFor(async () => {
          const [row] = await o.ctx.sql`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and (query ilike '%send_usage%' or query ilike '%reserve_send%')`;
          return row!.n >= 2;
        }, "the takeover to queue behind the held quota row");
      },
    );
    const taken = await takeover!;
    expect([slow.status, taken.status].sort()).toEqual([201, 409]);
    expect((slow.status === 409 ? slow : taken).body).toEqual(IN_PROGRESS);
    expect(o.sink.messages.length).toBe(atSink + 1);
  });
});

describe("a queued (202) send", () => {
  test("replays its 202 with the same draft and queues nothing more", async () => {
    const gated = await makeMailbox(o.ctx, o.owner, "idem-gated");
    await updateMailboxSettings(o.ctx.sql, o.owner, gated.id, { requireApproval: true });
    const first = await o.send({ ...body("queued-1"), mailbox_id: gated.id });
    expect(first.status).toBe(202);
    const again = await o.send({ ...body("queued-1"), mailbox_id: gated.id });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    const [row] = await o.ctx.sql`select count(*)::int as n from drafts where mailbox_id = ${gated.id}`;
    expect(row!.n).toBe(1);
  });
});

describe("a race", () => {
  test("twenty concurrent requests with one client_id deliver exactly once", async () => {
    const atSink = o.sink.messages.length;
    const responses = await Promise.all(Array.from({ length: 20 }, () => o.send(body("race-1", { text: "exactly once" }))));
    const statuses = responses.map((r) => r.status);
    for (const response of responses) {
      if (response.status === 409) expect(response.body).toEqual(IN_PROGRESS);
      else expect([200, 201]).toContain(response.status);
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    const ids = new Set(responses.filter((r) => r.status !== 409).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(o.sink.messages.length).toBe(atSink + 1);
    const [row] = await o.ctx
      .sql`select count(*)::int as n from messages where mailbox_id = ${o.mailbox.id} and body_clean = 'exactly once'`;
    expect(row!.n).toBe(1);
    // Once settled, every retry replays the one send.
    const settled = await o.send(body("race-1", { text: "exactly once" }));
    expect(settled.status).toBe(200);
    expect(settled.body.id).toBe([...ids][0]);
  });
});

describe("reconciliation racing a slow delivery", () => {
  /** A relay that takes its time over the message data, then answers 451 (try again later). */
  async function startSlowDeferringRelay(delayMs: number) {
    let received = 0;
    const server = new SMTPServer({
      logger: false,
      disableReverseLookup: true,
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      onData(stream, _session, callback) {
        stream.on("data", () => {});
        stream.on("end", () => {
          received++;
          setTimeout(() => callback(Object.assign(new Error("Try again later"), { responseCode: 451 })), delayMs);
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    return {
      port: (server.server.address() as AddressInfo).port,
      received: () => received,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  test("a send that failed transiently is never replayed as a 200 for a message that does not exist", async () => {
    const relay = await startSlowDeferringRelay(1500);
    // The delivery (1.5 s) outlasts the grace period (1 s): the worker reaches the row mid-delivery,
    // after its final dot (it waits for the reply then), or, on a slow machine, before it (it takes over).
    const ctx = await makeTestContext({
      DELIVERY_TRANSPORT: "smtp",
      SMTP_RELAY_URL: `smtp://127.0.0.1:${relay.port}`,
      RECONCILE_GRACE_S: "1",
      DELIVERY_TIMEOUT_MS: "5000",
    });
    const worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
    try {
      const account = await makeAccount(ctx);
      const mailbox = await makeMailbox(ctx, account, "slow");
      const request = { mailbox_id: mailbox.id, to: "alice@example.org", text: "slow", client_id: "slow-1" };
      const first = await ctx.request("POST", "/api/v1/send", { key: account.key, body: request });
      // 502 either way: transient (the 451), or delivery_outcome_unknown when the reconcile task
      // took the attempt over before its final dot (grace 0) and the attempt stood down.
      expect(first.status).toBe(502);
      await waitFor(
        async () =>
          (await ctx.sql`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'reconcile_send'`)[0]!.n === 0,
        "the reconcile job to finish",
      );

      // The client was told to retry with the same client_id: the retry must not claim success
      // for mail that never went out.
      const retry = await ctx.request("POST", "/api/v1/send", { key: account.key, body: request });
      if (retry.status === 200 || retry.status === 201) {
        const stored = await ctx.request("GET", `/api/v1/messages/${retry.body.id}`, { key: account.key });
        expect(stored.status).toBe(200);
      } else {
        expect(retry.status).toBe(502);
        expect(relay.received()).toBe(2);
      }
    } finally {
      await worker.stop();
      await ctx.close();
      await relay.close();
    }
  });
});

describe("answers stored as status and body, before outcomes were stored", () => {
  // Rows of an older version (or written by one during an upgrade) keep replaying as they were
  // answered: sql/0046_idempotency_outcomes.sql reads them as the outcomes they stood for.
  async function stored(clientId: string, state: string, status: number, answer: Record<string, unknown>) {
    const hash = await payloadHash(body(clientId));
    await o.ctx.sql`
      insert into idempotency_keys (account_id, mailbox_id, client_id, payload_hash, state, response_status, response_body, locked_until)
      values (${o.owner.accountId}, ${o.mailbox.id}, ${clientId}, ${hash}, ${state}, ${status}, ${o.ctx.sql.json(answer as never)}, now())`;
  }

  test("each replays with its status and body, and nothing is sent", async () => {
    const sent = { id: "msg_old", thread_id: "thr_old", provider_message_id: "<old@relay>" };
    const refused = { error: "recipient server rejected the message: 550 no such user", retryable: false };
    const unknown = {
      error: "delivery outcome unknown, the message may or may not have arrived: connection lost after the final dot",
      retryable: false,
      code: "delivery_outcome_unknown",
    };
    const held = { draft_id: "drf_old", status: "pending_approval" };
    const quota = { error: "monthly send quota exhausted" };
    await stored("old-sent", "completed", 201, sent);
    await stored("old-refused", "failed_terminal", 400, refused);
    await stored("old-unknown", "failed_terminal", 502, unknown);
    await stored("old-held", "completed", 202, held);
    await stored("old-quota", "failed_terminal", 402, quota);
    const atSink = o.sink.messages.length;
    for (const [clientId, status, answer] of [
      ["old-sent", 200, sent],
      ["old-refused", 400, refused],
      ["old-unknown", 502, unknown],
      ["old-held", 202, held],
      ["old-quota", 402, quota],
    ] as const) {
      const again = await o.send(body(clientId));
      expect({ clientId, status: again.status, body: again.body }).toEqual({ clientId, status, body: answer });
      expect(again.text).toBe(JSON.stringify(answer));
    }
    expect(o.sink.messages.length).toBe(atSink);
  });
});
