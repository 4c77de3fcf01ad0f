// Rspamd as the edge spam scanner (SPAM_SCANNER=rspamd, RSPAMD_URL), against a real Rspamd started
// for this file on loopback (test/support/rspamd.ts: Debian's rules, network lookups off, Bayes in
// Redis under a private prefix). Without rspamd installed the tests that need it skip and say so;
// under CI they fail. The "scanner down" comparison needs no daemon: a port nothing listens on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import nodemailer from "nodemailer";
import type Mail from "nodemailer/lib/mailer";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { SCANNER_ATTEMPTS, screenMessage } from "../../src/core/screening/screen.ts";
import type { Services } from "../../src/core/services.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxRow } from "../support/mailbox-row.ts";
import { type Rspamd, startRspamd } from "../support/rspamd.ts";
import { GTUBE } from "../support/scanners.ts";
import { freePort, servicesWith } from "../support/smtp-client.ts";
import { needTools } from "../support/system-tools.ts";

// Rspamd keeps its Bayes statistics in Redis (test/support/rspamd.ts).
const haveRspamd = await needTools(import.meta.path, ["rspamd", "redis"], "a real Rspamd as the edge scanner");

const SENDER_IP = "192.0.2.10";
const ENVELOPE = { remoteIp: SENDER_IP, helo: "mail.example.org", mailFrom: "alice@example.org" };

const builder = nodemailer.createTransport({ streamTransport: true, buffer: true });
async function rfc822(mail: Mail.Options): Promise<Uint8Array> {
  return new Uint8Array((await builder.sendMail(mail)).message as Buffer);
}

let counter = 0;
function personalMail(to: string, what: string, text?: string): Mail.Options {
  counter += 1;
  return {
    from: "Alice Martin <alice@example.org>",
    to,
    subject: `${what} #${counter}`,
    messageId: `<rspamd-test-${counter}-${crypto.randomUUID()}@example.org>`,
    text:
      text ??
      "Hi,\n\nAre you free for lunch on Thursday at 12:30? I was thinking of the Italian place near the office.\n\nLet me know,\nAlice\n",
  };
}

async function accept(ctx: TestContext, svc: Services, mailboxId: string, raw: Uint8Array): Promise<string> {
  const [id] = await acceptInbound(svc, raw, [(await mailboxRow(ctx, mailboxId))!], ENVELOPE);
  return id!;
}

async function stored(ctx: TestContext, id: string) {
  const [row] = await ctx.sql`select spam_risk, virus_risk, processed_at, comprehension from messages where id = ${id}`;
  return row!;
}

describe.skipIf(!haveRspamd)("a real Rspamd as the edge scanner", () => {
  let rspamd: Rspamd;
  let ctx: TestContext;
  let owner: Fixture;
  let inbox: { id: string; address: string };

  beforeAll(async () => {
    rspamd = await startRspamd();
    // SPAM_SCANNER unset: RSPAMD_URL alone chooses Rspamd.
    ctx = await makeTestContext({ RSPAMD_URL: rspamd.url });
    owner = await makeAccount(ctx);
    inbox = await makeMailbox(ctx, owner, "rspamd-screened");
  }, 300_000);

  afterAll(async () => {
    await ctx?.close();
    await rspamd?.close();
  });

  test("RSPAMD_URL alone selects rspamd", () => {
    expect(ctx.config.screening.spamScanner).toBe("rspamd");
  });

  test("GTUBE: Rspamd rejects it, the edge flags it, spam_risk high and skipped_spam", async () => {
    const id = await accept(ctx, ctx.svc, inbox.id, await rfc822(personalMail(inbox.address, "A very good offer", `Hello,\n\n${GTUBE}\n`)));
    await screenMessage(ctx.svc, id, 1);
    const row = await stored(ctx, id);
    expect(row.spam_risk).toBe("high");
    expect(row.comprehension).toMatchObject({
      status: "skipped_spam",
      spam: { edge: { flagged: true, source: "rspamd", action: "reject" } },
    });
    expect(row.comprehension.spam.edge.score).toBeGreaterThanOrEqual(row.comprehension.spam.edge.threshold);
  });

  test("personal mail: no action, the edge passes it, spam_risk low, complete", async () => {
    const id = await accept(ctx, ctx.svc, inbox.id, await rfc822(personalMail(inbox.address, "Lunch on Thursday?")));
    await screenMessage(ctx.svc, id, 1);
    const row = await stored(ctx, id);
    expect(row.spam_risk).toBe("low");
    expect(row.comprehension).toMatchObject({
      status: "complete",
      spam: { edge: { flagged: false, source: "rspamd", action: "no action" }, classifier: { spam: false } },
    });
    expect(row.comprehension.spam.edge.score).toBeLessThan(6); // under Rspamd's add-header threshold
  });

  test("Rspamd is told the envelope: the client's IP, MAIL FROM and the mailbox as recipient", async () => {
    const mail = personalMail(inbox.address, "Envelope check");
    const id = await accept(ctx, ctx.svc, inbox.id, await rfc822(mail));
    await screenMessage(ctx.svc, id, 1);
    // The controller's roll history keeps each scan's client IP and the symbols that fired.
    const history = (await (await fetch(`${rspamd.controllerUrl}/history`)).json()) as {
      id: string;
      ip: string;
      symbols: Record<string, unknown>;
    }[];
    const scan = history.find((row) => `<${row.id}>` === mail.messageId);
    expect(scan?.ip).toBe(SENDER_IP);
    // Symbols that compare the envelope with the headers fire only when the envelope was sent:
    // MAIL FROM is the From address, and the recipient (the mailbox) is the To address.
    expect(Object.keys(scan!.symbols)).toEqual(expect.arrayContaining(["FROM_EQ_ENVFROM", "TO_MATCH_ENVRCPT_ALL"]));
  });
});

describe("edge scanner down: Rspamd fails exactly as spamd does", () => {
  let ctx: TestContext;
  let owner: Fixture;
  let inbox: { id: string; address: string };
  const services: Record<"spamd" | "rspamd", Services> = {} as never;

  beforeAll(async () => {
    ctx = await makeTestContext();
    owner = await makeAccount(ctx);
    inbox = await makeMailbox(ctx, owner, "scanner-down");
    // A loopback port nothing listens on refuses connections, as a crashed scanner's would.
    const port = await freePort();
    services.spamd = servicesWith(ctx, { SPAMD_ADDRESS: `127.0.0.1:${port}`, SCANNER_TIMEOUT_MS: "1000" });
    services.rspamd = servicesWith(ctx, { RSPAMD_URL: `http://127.0.0.1:${port}`, SCANNER_TIMEOUT_MS: "1000" });
  });

  afterAll(() => ctx?.close());

  /** Every attempt but the last throws and records nothing; the last goes on without an edge verdict. */
  async function screenWhileDown(svc: Services): Promise<Record<string, unknown>> {
    const id = await accept(ctx, svc, inbox.id, await rfc822(personalMail(inbox.address, "Scanner down")));
    for (let attempt = 1; attempt < SCANNER_ATTEMPTS; attempt++) {
      await expect(screenMessage(svc, id, attempt)).rejects.toThrow();
      expect((await stored(ctx, id)).processed_at).toBeNull();
    }
    await screenMessage(svc, id, SCANNER_ATTEMPTS);
    const { spam_risk, virus_risk, comprehension } = await stored(ctx, id);
    return { spam_risk, virus_risk, status: comprehension.status, spam: comprehension.spam };
  }

  test(`both: attempts before ${SCANNER_ATTEMPTS} throw; attempt ${SCANNER_ATTEMPTS} goes on without an edge verdict`, async () => {
    expect(services.spamd.config.screening.spamScanner).toBe("spamd");
    expect(services.rspamd.config.screening.spamScanner).toBe("rspamd");
    const spamd = await screenWhileDown(services.spamd);
    const rspamd = await screenWhileDown(services.rspamd);
    expect(spamd).toMatchObject({ spam_risk: "low", status: "complete", spam: { edge: { flagged: false, source: "none" } } });
    // The classifier's score differs only by the subject's counter; everything else is the same.
    const { classifier: _a, ...spamdRest } = spamd.spam as Record<string, unknown>;
    const { classifier: _b, ...rspamdRest } = rspamd.spam as Record<string, unknown>;
    expect({ ...rspamd, spam: rspamdRest }).toEqual({ ...spamd, spam: spamdRest });
  });
});
