// The content classifier alone quarantines only above SPAM_CLASSIFIER_THRESHOLD: transactional
// mail an agent needs (password resets, order notices) must not be hidden as spam.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { acceptInbound } from "../src/core/inbound.ts";
import { mailboxRow } from "./support/mailbox-row.ts";
import { screenMessage } from "../src/core/screening.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "./support/context.ts";

let ctx: TestContext;
let mailboxId: string;
let address: string;

beforeAll(async () => {
  ctx = await makeTestContext();
  const owner = await makeAccount(ctx);
  ({ id: mailboxId, address } = await makeMailbox(ctx, owner, "inbox"));
});
afterAll(() => ctx.close());

// Dated now: the classifier compares the Date header with the arrival time.
const mail = (from: string, subject: string, body: string) =>
  new TextEncoder().encode(
    `From: ${from}\r\nTo: ${address}\r\nSubject: ${subject}\r\nMessage-ID: <${crypto.randomUUID()}@sender.example>\r\nDate: ${new Date().toUTCString().replace("GMT", "+0000")}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`,
  );

async function screened(raw: Uint8Array) {
  const mailbox = (await mailboxRow(ctx, mailboxId))!;
  const [id] = await acceptInbound(ctx.svc, raw, [mailbox], { remoteIp: null, helo: null, mailFrom: null });
  await screenMessage(ctx.svc, id!);
  const [row] = await ctx.sql`select spam_risk, comprehension from messages where id = ${id}`;
  return row!;
}

test("a password reset and an order notice are not quarantined, though the model leans spam on them", async () => {
  for (const raw of [
    mail(
      "Acme Support <support@acme.example>",
      "Reset your password",
      "Click the link below to reset your password: https://acme.example/reset?token=abc123. This link expires in 1 hour.",
    ),
    mail(
      "Shop <orders@shop.example>",
      "Your order #A-12345 has shipped",
      "Hi! Your order A-12345 totalling $49.99 shipped via UPS, tracking 1Z999AA10123456784.",
    ),
  ]) {
    const row = await screened(raw);
    expect(row.spam_risk).toBe("low");
    expect(row.comprehension.spam.classifier.score).toBeGreaterThan(0.5);
    expect(row.comprehension.spam.classifier.score).toBeLessThan(row.comprehension.spam.classifier.threshold);
    expect(row.comprehension.status).toBe("complete");
  }
});
