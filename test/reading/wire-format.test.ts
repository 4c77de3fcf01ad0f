// What goes on the wire, as a real MTA reads it: the SMTP greeting names ESMTP once, and no
// Subject we compose is folded into a header line holding only whitespace (RFC 5322 allows that
// only as obsolete syntax, 4.2) or a line past 998 octets (2.1.1), whatever the subject's spaces.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { composeMessage } from "../../src/mail/compose.ts";
import { makeTestContext, type TestContext } from "../support/context.ts";
import { openSmtp, reusableDataDir } from "../support/smtp-client.ts";

describe("the SMTP greeting", () => {
  let ctx: TestContext;
  let smtp: SmtpListener;
  beforeAll(async () => {
    ctx = await makeTestContext({ DATA_DIR: reusableDataDir, SMTP_HOSTNAME: "mx.agents.test" });
    smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await smtp.close();
    await ctx.close();
  });

  test("says ESMTP once, after the host name", async () => {
    const session = await openSmtp(smtp.port);
    try {
      expect(session.greeting.code).toBe(220);
      expect(session.greeting.text.match(/ESMTP/g)).toHaveLength(1);
      expect(session.greeting.text).toStartWith(`220 ${ctx.config.smtp.hostname} ESMTP`);
    } finally {
      session.close();
    }
  });
});

describe("Subject folding", () => {
  const compose = (subject: string) =>
    composeMessage({
      from: "bot@mail.example.com",
      to: "alice@example.org",
      subject,
      text: "Hi",
      messageId: "m1@mail.example.com",
      date: new Date(0),
    });
  const headerLinesOf = (raw: Uint8Array) => new TextDecoder().decode(raw).split("\r\n\r\n")[0]!.split("\r\n");

  const subjects = [
    "Hello ",
    "Hello world  ",
    "a".repeat(200) + " ",
    "x".repeat(70) + " ",
    "a".repeat(998),
    "a".repeat(997) + " ",
    "Re: " + "long words here ".repeat(10) + " ",
    "a" + " ".repeat(100) + "b",
    "word ".repeat(30),
    "tab at the end\t",
    "ünïcödé at the end ",
    "plain subject",
  ];
  for (const subject of subjects) {
    test(`${JSON.stringify(subject.length > 40 ? `${subject.slice(0, 20)}…(${subject.length})` : subject)}: no whitespace-only or overlong line, and it reads back`, async () => {
      const raw = await compose(subject);
      const lines = headerLinesOf(raw);
      expect(lines.filter((line) => /^[ \t]*$/.test(line))).toEqual([]);
      expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(998);
      expect(lines.join("\n")).toMatch(/^[\x00-\x7f]*$/);
      // Readers trim an unstructured header's outer whitespace; the words and inner spaces are kept.
      expect((await simpleParser(Buffer.from(raw))).subject?.trim()).toBe(subject.trim());
    });
  }

  test("an ordinary ASCII subject stays readable as it is (not encoded)", async () => {
    const lines = headerLinesOf(await compose("Invoice 42 for March"));
    expect(lines).toContain("Subject: Invoice 42 for March");
  });
});
