// GET /metrics: hidden (404) without the operator's token, and, with it, counters that move after
// real SMTP, HTTP, worker and webhook traffic over loopback.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { drainEventHub } from "../../src/core/events/hub.ts";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { makeApp } from "../../src/http/app.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { makeAccount, makeMailbox } from "../support/context.ts";
import { openSmtp, sendMail, waitFor } from "../support/smtp-client.ts";
import { type Stack, startStack, stopStack } from "../support/stack.ts";
import { type Receiver, startReceiver } from "../support/webhook-receiver.ts";

const TOKEN = "metrics-token-for-the-test-0123456789";
let stack: Stack;
let server: HttpServer;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack({ HTTP_PORT: "0", METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", DELIVERY_TRANSPORT: "local" });
  server = startHttpServer(stack.ctx.svc, stack.ctx.app);
  receiver = await startReceiver();
});
afterAll(async () => {
  await drainEventHub(stack.ctx.svc);
  await server.stop();
  await stopStack(stack);
  await receiver.close();
});

const base = () => `http://127.0.0.1:${server.port}`;

async function scrape(): Promise<string> {
  const response = await fetch(`${base()}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

/** The sample's value for a metric name and exact label set ("" for none); 0 when absent. */
function value(text: string, name: string, labels = ""): number {
  const wanted = labels ? `${name}{${labels}}` : name;
  for (const line of text.split("\n")) {
    const space = line.lastIndexOf(" ");
    if (line.slice(0, space) === wanted) return Number(line.slice(space + 1));
  }
  return 0;
}

describe("GET /metrics access", () => {
  test("no token, a wrong token and an unset METRICS_TOKEN all answer the unknown route's 404", async () => {
    const unknown = await fetch(`${base()}/no-such-route`);
    const unknownBody = await unknown.text();
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer wrong-token" },
      { authorization: `Basic ${TOKEN}` },
      { authorization: `Bearer ${TOKEN}x` },
    ]) {
      const response = await fetch(`${base()}/metrics`, { headers });
      expect(response.status).toBe(404);
      expect(await response.text()).toBe(unknownBody);
    }
    const unset = makeApp({ ...stack.ctx.svc, config: { ...stack.ctx.config, metricsToken: null } });
    const response = await unset.handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }));
    expect(response.status).toBe(404);
    expect(await response.text()).toBe(unknownBody);
  });
});

describe("counters move with real traffic", () => {
  test("SMTP accepted and rejected, jobs, webhook, sends, HTTP by route, queue and pool gauges", async () => {
    const before = await scrape();
    const account = await makeAccount(stack.ctx);
    const mailbox = await makeMailbox(stack.ctx, account, "metered");
    await setWebhook(stack.ctx.svc, { accountId: account.accountId, url: receiver.url, secret: "whsec_metrics_test_secret_0123456789" });

    await sendMail(stack.smtp.port, { from: "alice@example.org", to: mailbox.address, subject: "Counted", text: "One message to count." });
    const smtp = await openSmtp(stack.smtp.port);
    await smtp.command("EHLO client.example");
    await smtp.command("MAIL FROM:<alice@example.org>");
    expect((await smtp.command(`RCPT TO:<nobody-${Date.now()}@${mailbox.address.split("@")[1]}>`)).code).toBe(550);
    await smtp.command("QUIT");
    smtp.close();
    await receiver.waitForRequests(1);

    const sent = await fetch(`${base()}/api/v1/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
      body: JSON.stringify({ mailbox_id: mailbox.id, to: "someone@example.net", subject: "Out", text: "Going out." }),
    });
    expect(sent.status).toBe(201);
    const { id: sentId } = (await sent.json()) as { id: string };
    const read = await fetch(`${base()}/api/v1/messages/${sentId}`, { headers: { authorization: `Bearer ${account.key}` } });
    expect(read.status).toBe(200);

    // The first webhook attempt is made by the process_inbound job once the verdict commits; that
    // job's metric is recorded when Graphile Worker reports success, just after the webhook answered.
    const after = await waitFor(async () => {
      const text = await scrape();
      return (
        value(text, "mailbox_job_duration_seconds_count", 'task="process_inbound",outcome="success"') >
          value(before, "mailbox_job_duration_seconds_count", 'task="process_inbound",outcome="success"') &&
        value(text, "mailbox_webhook_attempts_total", 'outcome="delivered"') >
          value(before, "mailbox_webhook_attempts_total", 'outcome="delivered"') &&
        text
      );
    }, "the screening job's success and the delivered webhook in the metrics");
    const moved = (name: string, labels = "") => value(after, name, labels) - value(before, name, labels);
    expect(moved("mailbox_smtp_messages_total", 'result="accepted",reason="stored"')).toBeGreaterThanOrEqual(1);
    expect(moved("mailbox_smtp_messages_total", 'result="rejected",reason="unknown_mailbox"')).toBeGreaterThanOrEqual(1);
    expect(moved("mailbox_smtp_sessions_total")).toBeGreaterThanOrEqual(1);
    expect(moved("mailbox_job_duration_seconds_count", 'task="process_inbound",outcome="success"')).toBeGreaterThanOrEqual(1);
    expect(moved("mailbox_job_queue_wait_seconds_count", 'task="process_inbound"')).toBeGreaterThanOrEqual(1);
    expect(moved("mailbox_webhook_attempts_total", 'outcome="delivered"')).toBeGreaterThanOrEqual(1);
    expect(moved("mailbox_webhook_delivery_delay_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(moved("mailbox_sends_total", 'outcome="sent"')).toBe(1);
    expect(moved("mailbox_http_request_duration_seconds_count", 'method="POST",route="/api/v1/send",status="201"')).toBe(1);
    expect(moved("mailbox_http_request_duration_seconds_count", 'method="GET",route="/api/v1/messages/:id",status="200"')).toBe(1);
    // Ids never become labels: an unknown path is counted under one label.
    expect(after).not.toContain(mailbox.id);
    expect(after).not.toContain(sentId);
    expect(after).toContain('route="unmatched"');
    // Scrape-time gauges: every task known to the queue is listed, and the pool is sized.
    expect(after).toMatch(/mailbox_queue_jobs\{task="process_inbound"\} \d+/);
    expect(after).toMatch(/mailbox_queue_oldest_job_age_seconds\{task="deliver_webhook"\} [\d.]+/);
    expect(value(after, "mailbox_db_pool_max_connections")).toBe(10);
    expect(value(after, "mailbox_db_connections", 'state="active"')).toBeGreaterThanOrEqual(1);
  });
});
