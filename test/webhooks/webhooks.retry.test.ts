// Delivery failures against real receivers on loopback: the retry schedule with its ±20% jitter
// (shrunk through WEBHOOK_RETRY_SCHEDULE), dead letter after exactly 6 attempts, 429 Retry-After,
// timeouts, refused connections, redirects not followed, redrive with the same bytes and
// event_id, and a response body read only up to the cap. Scenarios start together in beforeAll
// (one account and receiver each) so their waits overlap; each test then checks its own.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ServerResponse } from "node:http";
import { resolve } from "node:path";
import { retryAfterSeconds, retryDelaySeconds } from "../../src/core/webhooks/delivery.ts";
import { listAttempts, listDeliveries, redriveDelivery, setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { verifyWebhookSignature } from "../../src/webhook-signature.ts";
import { type Fixture, makeAccount, makeMailbox } from "../support/context.ts";
import { refusal } from "../support/refusal.ts";
import { freePort, sendMail, waitFor } from "../support/smtp-client.ts";
import { type Stack, startStack, stopStack } from "../support/stack.ts";
import { answer, type Receiver, type Responder, startReceiver } from "../support/webhook-receiver.ts";

const SECRET = "whsec_retry_tests_0123456789abcdef";
const SHRUNK = [0.2, 0.4, 0.6, 0.8, 1.0];
// Long enough that no answered attempt times out on a loaded machine; the never-answering
// receiver shows the timeout itself.
const TIMEOUT_MS = 3_000;
const POLL_S = 1; // the worker polls for jobs due in the future every second
// How late a retry may come: polling plus the attempt itself on a heavily loaded machine. Never
// early and in order is the property; lateness is the machine's (benchmarks measure it).
const LATE_SLACK_S = 10;
// attempted_at is taken before the POST and the retry time after its answer: scheduledDelay takes
// the POST's own latency off, and this covers the rest (the answer handled, the record's
// transaction begun), which a loaded machine stretches from milliseconds to a fraction of a second.
const CLOCK_SLACK_S = 1;

type Scenario = { account: Fixture; receiver: Receiver; deliveryId: string; eventId: string };

const receivers: Receiver[] = [];
let mailCount = 0;

/** A fresh account whose webhook points at a new receiver (or `url`), and one mail delivered to it. */
async function startScenario(stack: Stack, respond: Responder, url?: (receiver: Receiver) => string): Promise<Scenario> {
  const receiver = await startReceiver(respond);
  receivers.push(receiver);
  const account = await makeAccount(stack.ctx);
  const mailbox = await makeMailbox(stack.ctx, account);
  await setWebhook(stack.ctx.svc, { accountId: account.accountId, url: url ? url(receiver) : receiver.url, secret: SECRET });
  const n = ++mailCount;
  // Personal-looking text, so screening passes it and comprehension runs fully.
  await sendMail(stack.smtp.port, {
    from: "maya@example.org",
    to: mailbox.address,
    subject: `Book club notes ${n}`,
    text: "Hi Jo,\n\nThanks for hosting yesterday. Could you send me the notes from the book club when you get a chance?\n\nCheers,\nMaya",
  });
  const delivery = await waitFor(async () => {
    const [row] = await stack.ctx.sql`select id, event_id from webhook_deliveries where account_id = ${account.accountId}`;
    return row;
  }, `a webhook delivery for mail ${n}`);
  return { account, receiver, deliveryId: delivery.id, eventId: delivery.event_id };
}

async function deliveryRow(stack: Stack, id: string) {
  const [row] = await stack.ctx
    .sql`select state, attempts, redrives, last_status, last_error, next_attempt_at from webhook_deliveries where id = ${id}`;
  return row!;
}

async function waitForState(stack: Stack, id: string, state: string, timeoutMs = 60_000) {
  return waitFor(
    async () => {
      const row = await deliveryRow(stack, id);
      return row.state === state ? row : null;
    },
    `delivery ${id} to be ${state}`,
    timeoutMs,
  );
}

/** Seconds between the last recorded attempt and the retry it scheduled, read while the retry is in flight. */
async function scheduledDelay(stack: Stack, eventId: string): Promise<number | null> {
  const [row] = await stack.ctx.sql`
    select (extract(epoch from d.next_attempt_at - a.attempted_at) - coalesce(a.latency_ms, 0) / 1000.0)::float8 as delay
    from webhook_deliveries d
      join lateral (select attempted_at, latency_ms from webhook_attempts where delivery_id = d.id order by id desc limit 1) a on true
    where d.event_id = ${eventId}`;
  return row ? row.delay : null;
}

/** Fails the first `failures` requests with 500, then acknowledges. */
const failThenAck =
  (failures: number): Responder =>
  (request, response, index) =>
    index < failures ? answer(500, `upstream failure ${index}`)(request, response, index) : answer(200, "ok")(request, response, index);

/** The operator CLI in a subprocess; async, so this process's worker keeps running meanwhile. */
async function runCli(stack: Stack, ...args: string[]) {
  const child = Bun.spawn([process.execPath, "src/cli.ts", ...args, "--json"], {
    cwd: resolve(import.meta.dir, "..", ".."),
    env: { ...process.env, DATABASE_URL: stack.ctx.config.databaseUrl!, LOG_LEVEL: "silent" },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

describe("retry delays", () => {
  test("retryDelaySeconds: 1000 samples per retry all within ±20% of the schedule, spread across the band, centred", () => {
    const schedule = [60, 300, 1800, 7200, 43200];
    for (let retry = 1; retry <= 5; retry++) {
      const base = schedule[retry - 1]!;
      const samples = Array.from({ length: 1000 }, () => retryDelaySeconds(schedule, retry));
      expect(samples.every((s) => s >= 0.8 * base && s <= 1.2 * base)).toBe(true);
      // Jitter is really applied: both ends of the band are reached, and the mean is the base.
      expect(Math.min(...samples)).toBeLessThan(0.83 * base);
      expect(Math.max(...samples)).toBeGreaterThan(1.17 * base);
      const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
      expect(Math.abs(mean - base) / base).toBeLessThan(0.02);
    }
    expect(retryDelaySeconds(schedule, 1, () => 0)).toBeCloseTo(48, 9);
    expect(retryDelaySeconds(schedule, 5, () => 0.999999)).toBeLessThan(1.2 * 43200);
    expect(retryDelaySeconds(schedule, 9, () => 0.5)).toBeCloseTo(43200, 6);
  });

  test("retryAfterSeconds: numeric seconds up to 24 h only", () => {
    expect(retryAfterSeconds("1")).toBe(1);
    expect(retryAfterSeconds(" 120 ")).toBe(120);
    expect(retryAfterSeconds("86400")).toBe(86400);
    expect(retryAfterSeconds("86401")).toBeNull();
    expect(retryAfterSeconds("soon")).toBeNull();
    expect(retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT")).toBeNull();
    expect(retryAfterSeconds("-5")).toBeNull();
    expect(retryAfterSeconds(null)).toBeNull();
  });
});

describe(`failures with a shrunk schedule (${SHRUNK.join(",")} s, timeout ${TIMEOUT_MS} ms)`, () => {
  let stack: Stack;
  const delays: (number | null)[] = [];
  let dead500: Promise<Scenario>;
  let timeout: Promise<Scenario>;
  let refused: Promise<Scenario>;
  let redirect: Promise<Scenario>;
  let redirectTarget: Receiver;
  let redrive: Promise<Scenario>;
  let redriveCli: Promise<Scenario>;
  let endless: Promise<Scenario>;
  let endlessClosed: Promise<number>;

  beforeAll(async () => {
    // The receivers are on loopback.
    stack = await startStack({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      WEBHOOK_RETRY_SCHEDULE: SHRUNK.join(","),
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    redirectTarget = await startReceiver();
    receivers.push(redirectTarget);
    const refusedPort = await freePort();
    let signalClosed: (bytes: number) => void;
    endlessClosed = new Promise((resolve) => (signalClosed = resolve));

    const started = [
      (dead500 = startScenario(stack, async (request, response, index) => {
        // Read while this retry is in flight: the delay that was scheduled after the previous attempt.
        if (index > 0) delays[index] = await scheduledDelay(stack, JSON.parse(request.text).event_id);
        answer(500, `upstream failure ${index}`)(request, response, index);
      })),
      (timeout = startScenario(stack, () => {
        // Never answers: the service must give up after WEBHOOK_TIMEOUT_MS.
      })),
      (refused = startScenario(stack, answer(200), () => `http://127.0.0.1:${refusedPort}/hook`)),
      (redirect = startScenario(stack, (request, response, index) =>
        answer(index % 2 ? 307 : 302, "moved", { location: redirectTarget.url })(request, response, index),
      )),
      (redrive = startScenario(stack, failThenAck(6))),
      (redriveCli = startScenario(stack, failThenAck(6))),
      (endless = startScenario(stack, (_request, response: ServerResponse) => {
        // A 200 whose body never ends: only a reader that stops at its cap can finish the attempt.
        response.writeHead(200, { "content-type": "text/plain" });
        const chunk = "x".repeat(64 * 1024);
        let written = 0;
        const pump = () => {
          for (let more = true; more && !response.destroyed; written += chunk.length) more = response.write(chunk);
        };
        response.on("drain", pump);
        response.on("close", () => signalClosed(written));
        pump();
      })),
    ];
    // Failures surface in the test that awaits them, not as unhandled rejections here.
    for (const scenario of started) scenario.catch(() => {});
  });

  afterAll(async () => {
    await stopStack(stack);
  });

  test("a receiver answering 500 gets exactly 6 attempts, then the delivery is dead with every attempt recorded", async () => {
    const { receiver, deliveryId, eventId, account } = await dead500;
    const dead = await waitForState(stack, deliveryId, "dead");
    expect(dead).toMatchObject({ attempts: 6, last_status: 500, last_error: "HTTP 500", next_attempt_at: null });
    // Nothing after the dead letter.
    await Bun.sleep((POLL_S + 0.5) * 1000);
    expect(receiver.requests).toHaveLength(6);

    const listed = await listDeliveries(stack.ctx.sql, account, { deadOnly: true });
    expect(listed.map((d) => [d.id, d.state, d.attempts])).toEqual([[deliveryId, "dead", 6]]);

    const attempts = await listAttempts(stack.ctx.sql, account, deliveryId);
    expect(attempts).toHaveLength(6);
    attempts.forEach((attempt, i) => {
      expect(attempt.status).toBe(500);
      expect(attempt.error).toBeNull();
      expect(attempt.response_snippet).toBe(`upstream failure ${i}`);
      expect(attempt.url).toBe(receiver.url);
      expect(typeof attempt.latency_ms).toBe("number");
      expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);
      expect(attempt.latency_ms).toBeLessThan(TIMEOUT_MS);
    });

    // Every attempt is the same event, byte for byte, each with its own valid signature.
    for (const request of receiver.requests) {
      expect(request.raw.equals(receiver.requests[0]!.raw)).toBe(true);
      expect(await verifyWebhookSignature(request.text, request.headers as Record<string, string>, SECRET)).toEqual({ ok: true });
    }
    expect(JSON.parse(receiver.requests[0]!.text).event_id).toBe(eventId);
  });

  test("the intervals between attempts follow the shrunk schedule within its ±20% jitter", async () => {
    const { receiver, deliveryId } = await dead500;
    await waitForState(stack, deliveryId, "dead");
    for (let retry = 1; retry <= 5; retry++) {
      const base = SHRUNK[retry - 1]!;
      // The delay that was scheduled: inside this retry's jitter band (and not the next one's).
      const delay = delays[retry]!;
      expect(delay).toBeGreaterThanOrEqual(0.8 * base - 0.005);
      expect(delay).toBeLessThanOrEqual(1.2 * base + CLOCK_SLACK_S);
      // The observed interval: never early, late by at most the worker's polling.
      const interval = (receiver.requests[retry]!.at - receiver.requests[retry - 1]!.at) / 1000;
      expect(interval).toBeGreaterThanOrEqual(0.8 * base);
      expect(interval).toBeLessThanOrEqual(1.2 * base + LATE_SLACK_S);
    }
  });

  test("a receiver that never answers: the attempt times out after WEBHOOK_TIMEOUT_MS and counts as a failure", async () => {
    const { receiver, deliveryId, account } = await timeout;
    const requests = await receiver.waitForRequests(2);
    // The retry comes no sooner than the timeout plus the first delay. The timeout's clock starts
    // when the worker begins the POST, before the receiver sees the request, so the interval seen at
    // the receiver can be short by the first request's transit (CLOCK_SLACK_S covers it); an attempt
    // that did not wait for the timeout would come after the 0.2 s delay alone.
    expect((requests[1]!.at - requests[0]!.at) / 1000).toBeGreaterThanOrEqual(TIMEOUT_MS / 1000 + 0.8 * SHRUNK[0]! - CLOCK_SLACK_S);
    const [first] = await listAttempts(stack.ctx.sql, account, deliveryId);
    expect(first).toMatchObject({ status: null, latency_ms: null, error: `timed out after ${TIMEOUT_MS} ms` });
    const row = await deliveryRow(stack, deliveryId);
    expect(row.attempts).toBeGreaterThanOrEqual(1);
  });

  test("a refused connection counts as a failure: retried to the dead letter, each attempt with its error", async () => {
    const { deliveryId, account } = await refused;
    const dead = await waitForState(stack, deliveryId, "dead");
    expect(dead.attempts).toBe(6);
    expect(dead.last_status).toBeNull();
    const attempts = await listAttempts(stack.ctx.sql, account, deliveryId);
    expect(attempts).toHaveLength(6);
    for (const attempt of attempts) {
      expect(attempt.status).toBeNull();
      expect(attempt.error).toMatch(/ECONNREFUSED|refused|unable to connect/i);
    }
  });

  test("a 3xx redirect is not followed: the target receives nothing and the attempt is a failure", async () => {
    const { receiver, deliveryId, account } = await redirect;
    const dead = await waitForState(stack, deliveryId, "dead");
    expect(dead.attempts).toBe(6);
    expect(receiver.requests).toHaveLength(6);
    expect(redirectTarget.requests).toHaveLength(0);
    const statuses = (await listAttempts(stack.ctx.sql, account, deliveryId)).map((a) => a.status);
    expect(statuses).toEqual([302, 307, 302, 307, 302, 307]);
    expect(dead.last_error).toBe("HTTP 307");
  });

  test("redriveDelivery re-sends the dead letter's exact bytes with the same event_id, in a fresh cycle", async () => {
    const { receiver, deliveryId, eventId, account } = await redrive;
    await waitForState(stack, deliveryId, "dead");
    // Only a dead letter can be redriven; an unknown id is not found.
    const notFound = await refusal(redriveDelivery(stack.ctx.sql, account, "whd_unknown"));
    expect(notFound.status).toBe(404);

    await redriveDelivery(stack.ctx.sql, account, deliveryId);
    const requests = await receiver.waitForRequests(7);
    const delivered = await waitForState(stack, deliveryId, "delivered");
    expect(delivered).toMatchObject({ attempts: 1, redrives: 1, last_status: 200 });
    expect(requests[6]!.raw.equals(requests[0]!.raw)).toBe(true);
    expect(JSON.parse(requests[6]!.text).event_id).toBe(eventId);
    expect(await verifyWebhookSignature(requests[6]!.text, requests[6]!.headers as Record<string, string>, SECRET)).toEqual({ ok: true });
    expect((await listAttempts(stack.ctx.sql, account, deliveryId)).map((a) => a.status)).toEqual([500, 500, 500, 500, 500, 500, 200]);

    const again = await refusal(redriveDelivery(stack.ctx.sql, account, deliveryId));
    expect(again.status).toBe(409);
  });

  test("the CLI's `webhook redrive ID` does the same from a subprocess", async () => {
    const { receiver, deliveryId, eventId, account } = await redriveCli;
    await waitForState(stack, deliveryId, "dead");
    const listed = await runCli(stack, "webhook", "deliveries", "--account", account.accountId, "--dead");
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((d: { id: string }) => d.id)).toEqual([deliveryId]);

    const run = await runCli(stack, "webhook", "redrive", deliveryId);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(run.stdout)).toEqual({ redriven: true });
    const requests = await receiver.waitForRequests(7);
    expect(requests[6]!.raw.equals(requests[0]!.raw)).toBe(true);
    expect(JSON.parse(requests[6]!.text).event_id).toBe(eventId);
    expect(await waitForState(stack, deliveryId, "delivered")).toMatchObject({ redrives: 1 });

    const refusedRun = await runCli(stack, "webhook", "redrive", deliveryId);
    expect(refusedRun.code).not.toBe(0);
    expect(refusedRun.stderr).toContain("only a dead-lettered delivery can be redriven");
  });

  test("a response body that never ends is read only up to the cap: the 200 acknowledges well before the timeout", async () => {
    const { deliveryId, receiver, account } = await endless;
    const delivered = await waitForState(stack, deliveryId, "delivered");
    expect(delivered).toMatchObject({ attempts: 1, last_status: 200 });
    expect(receiver.requests).toHaveLength(1);
    const [attempt] = await listAttempts(stack.ctx.sql, account, deliveryId);
    expect(attempt!.error).toBeNull();
    expect(attempt!.latency_ms).toBeLessThan(TIMEOUT_MS);
    // The stored snippet is the first bytes only.
    expect(attempt!.response_snippet.length).toBeGreaterThan(0);
    expect(attempt!.response_snippet.length).toBeLessThanOrEqual(512);
    expect(attempt!.response_snippet).toBe("x".repeat(attempt!.response_snippet.length));
    // The service hung up on the stream rather than draining it.
    const written = await Promise.race([endlessClosed, Bun.sleep(5_000).then(() => -1)]);
    expect(written).toBeGreaterThan(0);
  });
});

describe("429 Retry-After with a long schedule (20 s)", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_SCHEDULE: "20,20,20,20,20" });
  });

  afterAll(async () => {
    await stopStack(stack);
  });

  test("429 with Retry-After: 1 sets that attempt's delay: the retry comes about a second later", async () => {
    const { receiver, deliveryId, account } = await startScenario(stack, (request, response, index) =>
      index === 0
        ? answer(429, "slow down", { "retry-after": "1" })(request, response, index)
        : answer(200, "ok")(request, response, index),
    );
    const requests = await receiver.waitForRequests(2, 20_000);
    const interval = (requests[1]!.at - requests[0]!.at) / 1000;
    expect(interval).toBeGreaterThanOrEqual(1);
    expect(interval).toBeLessThan(1 + LATE_SLACK_S);
    expect(await waitForState(stack, deliveryId, "delivered")).toMatchObject({ attempts: 2, last_status: 200 });
    const attempts = await listAttempts(stack.ctx.sql, account, deliveryId);
    expect(attempts.map((a) => [a.status, a.response_snippet])).toEqual([
      [429, "slow down"],
      [200, "ok"],
    ]);
  });

  test("Retry-After that is not numeric seconds up to 24 h is ignored: the schedule's delay applies", async () => {
    const cases = ["soon", "Wed, 21 Oct 2015 07:28:00 GMT", "90000"];
    const scenarios = await Promise.all(cases.map((value) => startScenario(stack, answer(429, "busy", { "retry-after": value }))));
    const exact = await startScenario(stack, answer(429, "busy", { "retry-after": "3600" }));
    for (const scenario of [...scenarios, exact]) {
      await waitFor(async () => (await deliveryRow(stack, scenario.deliveryId)).attempts === 1, "the first attempt to be recorded");
    }
    for (const { eventId } of scenarios) {
      const delay = (await scheduledDelay(stack, eventId))!;
      expect(delay).toBeGreaterThanOrEqual(16 - 0.005);
      expect(delay).toBeLessThanOrEqual(24 + CLOCK_SLACK_S);
    }
    // The control: a numeric value within 24 h is taken exactly, without jitter.
    expect(Math.abs((await scheduledDelay(stack, exact.eventId))! - 3600)).toBeLessThan(CLOCK_SLACK_S);
    await Bun.sleep((POLL_S + 0.5) * 1000);
    for (const { receiver } of [...scenarios, exact]) expect(receiver.requests).toHaveLength(1);
  });
});
