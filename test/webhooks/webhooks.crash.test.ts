// At-least-once under a crash: a worker process (`bun src/main.ts`, ROLES=worker) is SIGKILLed
// while its webhook request is in flight. Its lease (WEBHOOK_TIMEOUT_MS + WEBHOOK_LEASE_GRACE_MS)
// runs out, the safety job it committed with the lease fires in a fresh worker, and the receiver
// gets the same event again: same bytes, same event_id, not before the lease expired. A failure
// after the crash is then retried as usual, although the dead worker still holds its job's lock.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { verifyWebhookSignature } from "../../src/webhook-signature.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { contextServiceEnv } from "../support/service-process.ts";
import { reusableDataDir, sendMail, waitFor } from "../support/smtp-client.ts";
import { answer, type Receiver, startReceiver } from "../support/webhook-receiver.ts";

const SECRET = "whsec_crash_tests_0123456789";
// Small, so the lease runs out within the test: 1 s timeout + 1 s grace.
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  WEBHOOK_TIMEOUT_MS: "1000",
  WEBHOOK_LEASE_GRACE_MS: "1000",
  WEBHOOK_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2",
};
const LEASE_MS = 2000;

let ctx: TestContext;
let smtp: SmtpListener;
let receiver: Receiver;
let child: ReturnType<typeof Bun.spawn> | null = null;
let worker: WorkerHandle | null = null;

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir, ...WEBHOOK_ENV });
  // SMTP in this process; no worker here until the child is dead.
  smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
  // The first request is held open (the receiver is slow), the second fails, the rest succeed.
  receiver = await startReceiver((request, response, index) => {
    if (index === 1) answer(503, "restarting")(request, response, index);
    if (index > 1) answer(200, "ok")(request, response, index);
  });
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await worker?.stop();
  await smtp.close();
  await receiver.close();
  await ctx.close();
});

test("a worker killed mid-delivery: a fresh worker delivers the same event after the lease runs out", async () => {
  const account = await makeAccount(ctx);
  const mailbox = await makeMailbox(ctx, account, "crash");
  await setWebhook(ctx.svc, { accountId: account.accountId, url: receiver.url, secret: SECRET });

  child = Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: resolve(import.meta.dir, "..", ".."),
    env: contextServiceEnv(ctx, { ROLES: "worker", ...WEBHOOK_ENV }),
    stdout: "ignore",
    stderr: "ignore",
  });

  await sendMail(smtp.port, {
    from: "lee@example.org",
    to: mailbox.address,
    subject: "Saturday hike",
    text: "Hi Pat,\n\nAre we still on for the hike on Saturday morning? I can drive if you like.\n\nLee",
  });
  // The child screens the mail and starts the delivery; the receiver holds that request.
  const [first] = await receiver.waitForRequests(1, 20_000);
  child.kill("SIGKILL");
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");

  const [delivery] = await ctx.sql`select id, state, attempts, lease_until from webhook_deliveries where account_id = ${account.accountId}`;
  // Killed mid-attempt: nothing recorded, the delivery still pending under the dead worker's lease.
  expect(delivery).toMatchObject({ state: "pending", attempts: 0 });
  expect(delivery!.lease_until).not.toBeNull();
  expect(await ctx.sql`select 1 from webhook_attempts where delivery_id = ${delivery!.id}`).toHaveLength(0);

  worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  const [, second, third] = await receiver.waitForRequests(3, 60_000);

  // Not while the dead worker's lease could still be a live attempt; soon after it ran out
  // (the safety job is due a second after the lease, and the worker polls every second; a heavily
  // loaded machine adds seconds, an unrecovered attempt would wait for hours).
  const interval = second!.at - first!.at;
  expect(interval).toBeGreaterThanOrEqual(LEASE_MS);
  expect(interval).toBeLessThan(LEASE_MS + 1000 + 1000 + 20_000);

  const eventId = JSON.parse(first!.text).event_id;
  for (const again of [second!, third!]) {
    expect(again.raw.equals(first!.raw)).toBe(true);
    expect(JSON.parse(again.text).event_id).toBe(eventId);
    expect(await verifyWebhookSignature(again.text, again.headers as Record<string, string>, SECRET)).toEqual({ ok: true });
  }

  const done = await waitFor(async () => {
    const [row] =
      await ctx.sql`select state, attempts, event_id from webhook_deliveries where id = ${delivery!.id} and state = 'delivered'`;
    return row;
  }, "the delivery to be marked delivered");
  // The killed attempt left no record; the two after it did.
  expect(done).toMatchObject({ state: "delivered", attempts: 2, event_id: eventId });
  expect((await ctx.sql`select status from webhook_attempts where delivery_id = ${delivery!.id} order by id`).map((a) => a.status)).toEqual(
    [503, 200],
  );
  // Nothing more once acknowledged.
  await Bun.sleep(1500);
  expect(receiver.requests).toHaveLength(3);
}, 120_000);
