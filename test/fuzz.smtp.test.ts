// Fuzzes the inbound path over real loopback SMTP, the real listener and the real worker, with a
// generated hostile corpus (test/fuzz/mime-corpus.ts) and hostile sessions: pipelined commands,
// two recipients, a stall in the middle of DATA, a client that vanishes in the middle of DATA.
// Every 250 is stored exactly once per recipient and reaches a final screening state; a refusal
// stores nothing; content the parser left unread is never reported `complete`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { FUZZ_MAX_MESSAGE_BYTES, type HostileMail, hostileMail } from "./fuzz/mime-corpus.ts";
import { check, reportStats, resetStats, runs, seed, stats } from "./fuzz/settings.ts";
import { makeAccount, makeMailbox } from "./support/context.ts";
import { dotStuffed, openSmtp, waitFor } from "./support/smtp-client.ts";
import { type Stack, startStack, stopStack } from "./support/stack.ts";

const STATUSES = ["complete", "partial", "skipped_injection_risk", "skipped_spam", "skipped_virus"];
/** How long a stored message may take to reach its final screening state (the bound). */
const FINAL_STATE_MS = 60_000;

let stack: Stack;
let inboxes: { id: string; address: string }[];
let counter = 0;
const nextId = () => `fz-${seed}-${++counter}`;

beforeAll(async () => {
  resetStats();
  stack = await startStack({ SMTP_MAX_MESSAGE_BYTES: String(FUZZ_MAX_MESSAGE_BYTES) });
  const account = await makeAccount(stack.ctx);
  inboxes = [await makeMailbox(stack.ctx, account, "fuzz-a"), await makeMailbox(stack.ctx, account, "fuzz-b")];
}, 60_000);

afterAll(async () => {
  reportStats("fuzz.smtp");
  await stopStack(stack);
});

type Session = "plain" | "pipelined" | "two_recipients" | "stall" | "vanish";

/** Delivers over one fresh connection the way the session says; the final reply, or null when the client vanished. */
async function deliver(mail: HostileMail, session: Session): Promise<number | null> {
  stats.smtpSessions++;
  const smtp = await openSmtp(stack.smtp.port);
  try {
    expect((await smtp.command("EHLO fuzz.example")).code).toBe(250);
    const recipients = session === "two_recipients" ? inboxes : [inboxes[0]!];
    if (session === "pipelined") {
      smtp.write(`MAIL FROM:<fuzz@example.org>\r\nRCPT TO:<${recipients[0]!.address}>\r\nDATA\r\n`);
      const replies = [await smtp.read(), await smtp.read(), await smtp.read()];
      expect(replies.map((reply) => reply.code)).toEqual([250, 250, 354]);
      smtp.write(dotStuffed(mail.bytes));
      return (await smtp.read(30_000)).code;
    }
    expect((await smtp.command("MAIL FROM:<fuzz@example.org>")).code).toBe(250);
    for (const recipient of recipients) expect((await smtp.command(`RCPT TO:<${recipient.address}>`)).code).toBe(250);
    expect((await smtp.command("DATA")).code).toBe(354);
    const wire = dotStuffed(mail.bytes);
    if (session === "stall" || session === "vanish") {
      const half = Math.floor(mail.bytes.length / 2);
      smtp.write(wire.subarray(0, half));
      await Bun.sleep(session === "stall" ? 1_000 : 100);
      if (session === "vanish") {
        smtp.close();
        return null;
      }
      smtp.write(wire.subarray(half));
    } else {
      smtp.write(wire);
    }
    return (await smtp.read(30_000)).code;
  } finally {
    smtp.close();
  }
}

type Stored = { id: string; processed_at: Date | null; comprehension: any; unread_content: string | null };

async function storedCopies(mail: HostileMail): Promise<{ raws: number; messages: Stored[] }> {
  const digest = createHash("sha256").update(mail.bytes).digest("hex");
  const raws = await stack.ctx.sql`select id from raw_messages where sha256 = ${digest}`;
  const messages = await stack.ctx.sql<Stored[]>`
    select m.id, m.processed_at, m.comprehension, m.unread_content from messages m
    join raw_messages r on r.id = m.raw_message_id where r.sha256 = ${digest}`;
  return { raws: raws.length, messages };
}

async function storedByMarker(mail: HostileMail): Promise<number> {
  const marker = /X-Fuzz-Id: (\S+)/.exec(mail.bytes.subarray(0, 200).toString("latin1"))![1]!;
  const [row] = await stack.ctx
    .sql`select count(*)::int as n from raw_messages where position(${Buffer.from(marker)}::bytea in content) > 0`;
  return row!.n as number;
}

describe("hostile SMTP corpus", () => {
  test("every 250 is stored once per recipient and screened to a final state; unread content is never complete", async () => {
    const sessions = fc.oneof(
      { weight: 5, arbitrary: fc.constant<Session>("plain") },
      { weight: 2, arbitrary: fc.constantFrom<Session>("pipelined", "two_recipients") },
      { weight: 1, arbitrary: fc.constantFrom<Session>("stall", "vanish") },
    );
    await check(
      "smtp corpus",
      fc.asyncProperty(hostileMail(nextId), sessions, async (mail, session) => {
        const reply = await deliver(mail, session);
        const what = `${mail.shape}, session ${session}, reply ${reply}`;
        if (reply === null) {
          await Bun.sleep(200);
          expect({ what, stored: await storedByMarker(mail) }).toEqual({ what, stored: 0 });
          return;
        }
        if (mail.bytes.length > FUZZ_MAX_MESSAGE_BYTES) expect({ what, accepted: reply === 250 }).toEqual({ what, accepted: false });
        if (reply !== 250) {
          // A refusal (5xx) or a deferral (4xx): nothing may have been kept.
          stats.refused++;
          expect({ what, stored: (await storedCopies(mail)).raws }).toEqual({ what, stored: 0 });
          return;
        }
        stats.messages++;
        if (mail.unread) stats.messagesPastParserLimits++;
        const recipients = session === "two_recipients" ? 2 : 1;
        const copies = await storedCopies(mail);
        expect({ what, raws: copies.raws, messages: copies.messages.length }).toEqual({ what, raws: 1, messages: recipients });
        const screened = await waitFor(
          async () => {
            const now = await storedCopies(mail);
            return now.messages.every((message) => message.processed_at) ? now.messages : null;
          },
          `final state of ${what}`,
          FINAL_STATE_MS,
        );
        for (const message of screened) {
          const status = message.comprehension?.status;
          expect({ what, known: STATUSES.includes(status) }).toEqual({ what, known: true });
          // The service's own record and its verdict agree...
          if (message.unread_content) expect({ what, status }).not.toEqual({ what, status: "complete" });
          // ...and a message clearly past the parser's limits is recorded as read in part.
          if (mail.unread) {
            expect({ what, unread: message.unread_content !== null }).toEqual({ what, unread: true });
            expect({ what, status }).not.toEqual({ what, status: "complete" });
          }
        }
      }),
      runs(20, 500),
    );
  }, 600_000);

  test("after all of that the listener still answers, and an ordinary message is stored once", async () => {
    const smtp = await openSmtp(stack.smtp.port);
    try {
      expect(smtp.greeting.code).toBe(220);
      expect((await smtp.command("EHLO fuzz.example")).code).toBe(250);
      expect((await smtp.command("MAIL FROM:<a@example.org>")).code).toBe(250);
      expect((await smtp.command(`RCPT TO:<${inboxes[0]!.address}>`)).code).toBe(250);
      const mail = Buffer.from(`X-Fuzz-Id: ${nextId()}\r\nSubject: still here\r\n\r\nhello\r\n`);
      expect((await smtp.data(mail)).code).toBe(250);
      expect((await storedCopies({ bytes: mail, shape: "", unread: false })).raws).toBe(1);
    } finally {
      smtp.close();
    }
  });
});
