// Outbound: never "sent" unless it was. The service (`bun src/main.ts`, ROLES=api) delivers to a
// real SMTP sink that holds the transaction at a chosen stage; the process is SIGKILLed there, and
// a retry of the same client_id must reach a final answer that matches what the sink holds:
//  - killed before the final dot (RCPT held): the reconcile task delivers it again, same Message-ID;
//    the retry answers 200 sent and the sink has exactly one copy;
//  - killed after the final dot, before the reply (reply held): the true ambiguity; the retry
//    answers 502 delivery_outcome_unknown (never 200), the sink has the one copy it got.
// And without a kill: an attempt stalled before its final dot is taken over, and can no longer
// put a second copy on the wire when it wakes up.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { sendsByOutcome } from "../../src/dashboard/activity-queries.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { type Outbound, rawHeader, startOutbound, waitFor } from "../support/outbound.ts";
import { contextServiceEnv, type ServiceChild, spawnService, waitForStarted } from "../support/service-process.ts";

// Short enough for a test, and the same shape as the defaults (30 s and 30 s).
const ENV = { RECONCILE_GRACE_S: "1", DELIVERY_TIMEOUT_MS: "8000" };

let o: Outbound;
let worker: WorkerHandle | null = null;
let child: ServiceChild | null = null;

beforeAll(async () => {
  o = await startOutbound(ENV);
});
afterEach(async () => {
  if (child && child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGKILL");
  child = null;
  await worker?.stop();
  worker = null;
  o.sink.mode = "accept";
  o.sink.release();
});
afterAll(() => o.close());

async function startApi(): Promise<{ base: string; service: ServiceChild }> {
  const server = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = server.port;
  server.stop(true);
  const service = spawnService(process.execPath, ["src/main.ts"], {
    cwd: resolve(import.meta.dir, "..", ".."),
    env: contextServiceEnv(o.ctx, {
      ROLES: "api",
      HTTP_PORT: String(port),
      DELIVERY_TRANSPORT: "smtp",
      SMTP_RELAY_URL: `smtp://127.0.0.1:${o.sink.port}`,
      PUBLIC_BASE_URL: "https://mail.example.test",
      LOG_LEVEL: "info",
      ...ENV,
    }),
  });
  child = service;
  await waitForStarted(service, 30_000);
  return { base: `http://127.0.0.1:${port}`, service };
}

const sendBody = (clientId: string) => ({
  mailbox_id: o.mailbox.id,
  to: "alice@example.org",
  subject: clientId,
  text: "Once.",
  client_id: clientId,
});

/** Retries the same client_id (in this process, no worker of the killed one) until it is no longer 409. */
async function retryUntilFinal(clientId: string) {
  const started = performance.now();
  for (;;) {
    const answer = await o.send(sendBody(clientId));
    if (answer.status !== 409) return { answer, waitedMs: performance.now() - started };
    if (performance.now() - started > 60_000) throw new Error(`still 409 after 60 s: ${answer.text}`);
    await Bun.sleep(200);
  }
}

const atSink = (subject: string) => o.sink.messages.filter((m) => rawHeader(m.raw, "subject") === subject);

async function killMidDelivery(clientId: string) {
  const { base, service } = await startApi();
  const pending = fetch(`${base}/api/v1/send`, {
    method: "POST",
    headers: { authorization: `Bearer ${o.owner.key}`, "content-type": "application/json" },
    body: JSON.stringify(sendBody(clientId)),
  }).catch((error: Error) => error);
  await waitFor(async () => o.sink.held() === 1, "the sink to hold the transaction", 20_000);
  service.child.kill("SIGKILL");
  await service.exited;
  expect(await pending).toBeInstanceOf(Error);
  // The dead process's connection is answered too late to matter; the next one is accepted.
  o.sink.mode = "accept";
  o.sink.release();
}

test("killed before the final dot: delivered again with the same Message-ID, the retry answers sent, one copy at the sink", async () => {
  o.sink.mode = "hold-rcpt";
  await killMidDelivery("crash-before-dot");
  const [row] = await o.ctx.sql`select id, delivery_status, final_dot_at from messages where subject = 'crash-before-dot'`;
  expect(row).toMatchObject({ delivery_status: "sending", final_dot_at: null });
  // Before the reconcile task decides, the claim is in progress: never a premature "sent".
  expect((await o.send(sendBody("crash-before-dot"))).status).toBe(409);

  worker = await startWorker(o.ctx.svc, o.ctx.config.databaseUrl!);
  const { answer, waitedMs } = await retryUntilFinal("crash-before-dot");
  expect(answer.status).toBe(200);
  expect(answer.body.id).toBe(row!.id);
  expect(waitedMs).toBeLessThan(60_000);
  const copies = atSink("crash-before-dot");
  expect(copies).toHaveLength(1);
  expect(rawHeader(copies[0]!.raw, "message-id")).toBe(`<${row!.id}@${o.mailbox.address.split("@")[1]}>`);
  const [after] = await o.ctx.sql`select delivery_status, delivery_attempts, delivery_stage from messages where id = ${row!.id}`;
  expect(after).toMatchObject({ delivery_status: "sent", delivery_attempts: 2, delivery_stage: "final" });
  // Replays keep saying the same, and nothing more goes out.
  expect((await o.send(sendBody("crash-before-dot"))).text).toBe(answer.text);
  expect(atSink("crash-before-dot")).toHaveLength(1);
}, 90_000);

test("killed after the final dot, before the reply: 502 delivery_outcome_unknown to the retry, never sent; marked in doubt", async () => {
  o.sink.mode = "hold-reply";
  await killMidDelivery("crash-after-dot");
  const [row] = await o.ctx.sql`select id, delivery_status, final_dot_at from messages where subject = 'crash-after-dot'`;
  expect(row!.delivery_status).toBe("sending");
  expect(row!.final_dot_at).not.toBeNull();

  worker = await startWorker(o.ctx.svc, o.ctx.config.databaseUrl!);
  const { answer, waitedMs } = await retryUntilFinal("crash-after-dot");
  expect(answer.status).toBe(502);
  expect(answer.body).toMatchObject({ code: "delivery_outcome_unknown", retryable: false });
  expect(waitedMs).toBeLessThan(60_000);
  // The sink did get it (that is the ambiguity), once; the service never sent it again.
  await Bun.sleep(1500);
  expect(atSink("crash-after-dot")).toHaveLength(1);
  expect((await o.send(sendBody("crash-after-dot"))).body).toEqual(answer.body);
  const [after] = await o.ctx.sql`select delivery_status, outcome_assumed from messages where id = ${row!.id}`;
  expect(after).toMatchObject({ delivery_status: "unknown", outcome_assumed: false });
  // The agent hears of it: message.send_failed with outcome unknown, and no message.sent.
  const events = await o.ctx.sql`select type, payload from event_log where message_id = ${row!.id} order by position`;
  expect(events.map((e) => e.type)).toEqual(["message.send_failed"]);
  expect(events[0]!.payload as string).toContain('"outcome":"unknown"');
  const activity = await sendsByOutcome(o.ctx.sql, o.owner.accountId, o.mailbox.id);
  expect(activity.some((d) => d.outcome === "in doubt" && d.n >= 1)).toBe(true);
  expect(activity.some((d) => d.outcome === "assumed sent")).toBe(false);
}, 90_000);

test("an attempt stalled before its final dot is taken over; when it wakes it cannot send a second copy", async () => {
  o.sink.mode = "hold-rcpt";
  const stalled = o.send(sendBody("stalled-attempt"));
  await waitFor(async () => o.sink.held() === 1, "the sink to hold the first attempt");
  o.sink.mode = "accept";
  worker = await startWorker(o.ctx.svc, o.ctx.config.databaseUrl!);
  await waitFor(async () => {
    const [row] = await o.ctx.sql`select delivery_status from messages where subject = 'stalled-attempt'`;
    return row?.delivery_status === "sent";
  }, "the reconcile task to deliver it");
  expect(atSink("stalled-attempt")).toHaveLength(1);
  // The first attempt now gets its 250 for RCPT, sends the data, and is refused its mark.
  o.sink.release();
  const first = await stalled;
  expect(first.status).toBe(502);
  expect(first.body.code).toBe("delivery_outcome_unknown");
  await Bun.sleep(1000);
  expect(atSink("stalled-attempt")).toHaveLength(1);
  const retry = await o.send(sendBody("stalled-attempt"));
  expect(retry.status).toBe(200);
}, 60_000);

test("a connection dropped at RCPT: transient, nothing at the sink, the retry sends it once", async () => {
  o.sink.mode = "drop-at-rcpt";
  const first = await o.send(sendBody("dropped-at-rcpt"));
  expect(first.status).toBe(502);
  expect(first.body.retryable).toBe(true);
  expect(atSink("dropped-at-rcpt")).toHaveLength(0);
  o.sink.mode = "accept";
  const retry = await o.send(sendBody("dropped-at-rcpt"));
  expect(retry.status).toBe(201);
  expect(atSink("dropped-at-rcpt")).toHaveLength(1);
});

test("a connection dropped after the final dot: 502 delivery_outcome_unknown at once, and the same answer to every retry", async () => {
  o.sink.mode = "drop-after-data";
  const first = await o.send(sendBody("dropped-after-dot"));
  expect(first.status).toBe(502);
  expect(first.body.code).toBe("delivery_outcome_unknown");
  o.sink.mode = "accept";
  const retry = await o.send(sendBody("dropped-after-dot"));
  expect(retry.status).toBe(502);
  expect(retry.body).toEqual(first.body);
  expect(atSink("dropped-after-dot")).toHaveLength(1);
});
