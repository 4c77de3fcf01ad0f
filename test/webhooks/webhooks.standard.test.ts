// Standard Webhooks on every delivery, checked with the reference `standardwebhooks` package:
// a generated secret, a whsec_+base64 secret a human gives, and any other secret (its UTF-8
// bytes as a raw key). the contract's own headers still verify beside them, and webhook-id is the
// event_id, the same on a retry.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { verifyWebhookSignature } from "agent-mailbox/verify";
import { Webhook } from "standardwebhooks";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { standardWebhookKey, verifyStandardWebhook } from "../../src/standard-webhooks.ts";
import { makeAccount, makeMailbox } from "../support/context.ts";
import { sendMail } from "../support/smtp-client.ts";
import { type Stack, startStack, stopStack } from "../support/stack.ts";
import { answer, type Receiver, startReceiver } from "../support/webhook-receiver.ts";

let stack: Stack;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2" });
  receiver = await startReceiver();
});
afterAll(async () => {
  await stopStack(stack);
  await receiver.close();
});

async function deliveredWith(secret: string | null, slug: string) {
  const account = await makeAccount(stack.ctx);
  const mailbox = await makeMailbox(stack.ctx, account, slug);
  const set = await setWebhook(stack.ctx.svc, { accountId: account.accountId, url: receiver.url, secret });
  const before = receiver.requests.length;
  await sendMail(stack.smtp.port, {
    from: "dana@example.org",
    to: mailbox.address,
    subject: `Standard ${slug}`,
    text: "Checking the signature headers.",
  });
  const requests = await receiver.waitForRequests(before + 1);
  return { secret: set.secret, request: requests[before]! };
}

const headerRecord = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

test("a generated secret is whsec_+base64 and the reference library verifies the delivery", async () => {
  const { secret, request } = await deliveredWith(null, "generated");
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const payload = new Webhook(secret).verify(request.text, headerRecord(request.headers)) as { event_id: string };
  expect(request.headers["webhook-id"]).toBe(payload.event_id);
  expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  expect(Math.abs(Number(request.headers["webhook-timestamp"]) * 1000 - Number(request.headers["x-service-timestamp"]))).toBeLessThan(1000);
  // The contract's headers are unchanged beside them.
  expect(await verifyWebhookSignature(request.text, request.headers as never, secret)).toEqual({ ok: true });
});

test("a whsec_+base64 secret given by a human signs with its decoded bytes", async () => {
  const given = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
  const { request } = await deliveredWith(given, "given");
  expect(() => new Webhook(given).verify(request.text, headerRecord(request.headers))).not.toThrow();
  expect(await verifyStandardWebhook(request.text, request.headers as never, given)).toEqual({ ok: true });
  expect(Buffer.from(standardWebhookKey(given)).toString()).toBe("0123456789abcdef0123456789abcdef");
});

test("any other secret signs with its UTF-8 bytes, verified as a raw key; a wrong key or edited body fails", async () => {
  const other = "plain-old-secret_not_base64!";
  const { request } = await deliveredWith(other, "plain");
  const headers = headerRecord(request.headers);
  expect(() => new Webhook(new TextEncoder().encode(other), { format: "raw" }).verify(request.text, headers)).not.toThrow();
  expect(() => new Webhook(new TextEncoder().encode("another-secret-entirely"), { format: "raw" }).verify(request.text, headers)).toThrow();
  expect(() =>
    new Webhook(new TextEncoder().encode(other), { format: "raw" }).verify(request.text.replace("Checking", "Chocking"), headers),
  ).toThrow();
  expect((await verifyStandardWebhook(request.text, request.headers as never, other, { now: Date.now() + 10 * 60_000 })).ok).toBe(false);
});

test("a retry carries the same webhook-id with a fresh timestamp and signature", async () => {
  let retried = false;
  const before = receiver.requests.length;
  receiver.respond = (request, response, index) => {
    const status = retried ? 200 : 500;
    retried = true;
    answer(status)(request, response, index);
  };
  // The first attempt is answered 500; the retry (0.2 s later) 200.
  const { secret } = await deliveredWith(null, "retried");
  const [first, second] = (await receiver.waitForRequests(before + 2)).slice(before);
  expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
  expect(second!.text).toBe(first!.text);
  expect(() => new Webhook(secret).verify(second!.text, headerRecord(second!.headers))).not.toThrow();
});
