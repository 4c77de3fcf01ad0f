// Which screened messages reach the webhook: skipped_spam only when the mailbox sets
// deliver_spam (then with extraction null), skipped_virus never; both stay readable through the
// API. Spam is flagged by a trusted upstream MTA (INBOUND_AUTH_MODE=trust, X-Spam-Flag: YES on a
// GTUBE mail); the virus verdict comes from a real clamd scanning an EICAR attachment.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { updateMailboxSettings } from "../../src/core/mailboxes.ts";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { EICAR, GTUBE, type Scanner, startClamd } from "../support/scanners.ts";
import { reusableDataDir, sendMail, waitFor } from "../support/smtp-client.ts";
import { needTools } from "../support/system-tools.ts";
import { type Receiver, startReceiver } from "../support/webhook-receiver.ts";

const SECRET = "whsec_deliver_spam_0123456789";
// The virus verdict needs a real clamd; without it the whole file skips (under CI it fails).
const haveClamd = await needTools(import.meta.path, ["clamd"], "webhooks for screened spam and viruses");

let clamd: Scanner;
let ctx: TestContext;
let smtp: SmtpListener;
let worker: WorkerHandle;
let receiver: Receiver;
let account: Fixture;
let spamOff: { id: string; address: string };
let spamOn: { id: string; address: string };

describe.skipIf(!haveClamd)("screened mail and the webhook", () => {
  beforeAll(async () => {
    clamd = await startClamd();
    ctx = await makeTestContext({
      DATA_DIR: reusableDataDir,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      CLAMD_ADDRESS: clamd.address,
      INBOUND_AUTH_MODE: "trust",
    });
    smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
    worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
    receiver = await startReceiver();
    account = await makeAccount(ctx);
    spamOff = await makeMailbox(ctx, account, "spam-off");
    spamOn = await makeMailbox(ctx, account, "spam-on");
    expect((await updateMailboxSettings(ctx.sql, account, spamOn.id, { deliverSpam: true })).deliver_spam).toBe(true);
    await setWebhook(ctx.svc, { accountId: account.accountId, url: receiver.url, secret: SECRET });
  });

  afterAll(async () => {
    await worker?.stop();
    await smtp?.close();
    await receiver?.close();
    await ctx?.close();
    await clamd?.close();
  });

  async function screened(subject: string) {
    return waitFor(async () => {
      const [row] = await ctx.sql`
        select id, spam_risk, virus_risk, comprehension->>'status' as status from messages where subject = ${subject} and processed_at is not null`;
      return row;
    }, `'${subject}' to be screened`);
  }

  const eventsFor = (messageId: string) => ctx.sql`select id from webhook_events where message_id = ${messageId}`;
  const posted = (subject: string) => receiver.requests.filter((request) => JSON.parse(request.text).subject === subject);

  const spamMail = (to: string, subject: string) =>
    sendMail(smtp.port, {
      from: "deals@example.net",
      to,
      subject,
      text: `Dear friend,\n\n${GTUBE}\n\nClick now.`,
      headers: { "X-Spam-Flag": "YES", "X-Spam-Status": "Yes, score=1000.0 required=5.0 tests=GTUBE" },
    });

  describe("skipped_spam", () => {
    test("deliver_spam off: screened as spam, no event, nothing posted", async () => {
      await spamMail(spamOff.address, "Spam to the strict mailbox");
      const message = await screened("Spam to the strict mailbox");
      expect(message).toMatchObject({ spam_risk: "high", status: "skipped_spam" });
      expect(await eventsFor(message.id)).toHaveLength(0);
      // Sent after the spam: once it arrives, anything for the spam would have arrived before it.
      await sendMail(smtp.port, {
        from: "lee@example.org",
        to: spamOff.address,
        subject: "Saturday hike",
        text: "Hi Pat,\n\nAre we still on for the hike on Saturday morning? I can drive if you like.\n\nLee",
      });
      await waitFor(async () => posted("Saturday hike").length === 1, "the clean mail's event");
      expect(posted("Spam to the strict mailbox")).toHaveLength(0);
      const [clean] = receiver.requests.map((r) => JSON.parse(r.text)).filter((p) => p.subject === "Saturday hike");
      expect(clean.comprehension_status).toBe("complete");
    });

    test("deliver_spam on: one event with comprehension_status skipped_spam and extraction null", async () => {
      await spamMail(spamOn.address, "Spam to the lenient mailbox");
      const message = await screened("Spam to the lenient mailbox");
      expect(message).toMatchObject({ spam_risk: "high", status: "skipped_spam" });
      await waitFor(async () => posted("Spam to the lenient mailbox").length === 1, "the spam's event");
      const payload = JSON.parse(posted("Spam to the lenient mailbox")[0]!.text);
      expect(payload).toMatchObject({
        type: "message.received",
        message_id: message.id,
        mailbox_id: spamOn.id,
        comprehension_status: "skipped_spam",
        extraction: null,
        extraction_error: null,
      });
      expect(Object.keys(payload)).toHaveLength(15);
      expect(typeof payload.confidence).toBe("number");
      expect(await eventsFor(message.id)).toHaveLength(1);
    });
  });

  describe("skipped_virus", () => {
    test("an EICAR attachment: virus_risk high, no event even with deliver_spam on, still readable through the API", async () => {
      for (const mailbox of [spamOff, spamOn]) {
        await sendMail(smtp.port, {
          from: "lee@example.org",
          to: mailbox.address,
          subject: `The file you asked for (${mailbox.id})`,
          text: "Hi Pat,\n\nHere is the file you asked for.\n\nLee",
          attachments: [{ filename: "eicar.com", content: EICAR }],
        });
      }
      for (const mailbox of [spamOff, spamOn]) {
        const subject = `The file you asked for (${mailbox.id})`;
        const message = await screened(subject);
        expect(message).toMatchObject({ virus_risk: "high", status: "skipped_virus" });
        expect(await eventsFor(message.id)).toHaveLength(0);

        const read = await ctx.request("GET", `/api/v1/messages/${message.id}`, { key: account.key });
        expect(read.status).toBe(200);
        expect(read.body).toMatchObject({ id: message.id, mailbox_id: mailbox.id, subject, virus_risk: "high" });
      }
      // A later clean mail's event arrives; nothing for the infected ones came before it.
      await sendMail(smtp.port, {
        from: "lee@example.org",
        to: spamOn.address,
        subject: "After the file",
        text: "Hi Pat,\n\nDid the file come through all right?\n\nLee",
      });
      await waitFor(async () => posted("After the file").length === 1, "the clean mail's event");
      expect(receiver.requests.filter((r) => JSON.parse(r.text).subject.startsWith("The file you asked for"))).toHaveLength(0);
    });
  });
});
