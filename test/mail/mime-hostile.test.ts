// Broken and hostile MIME over real SMTP: every message within the listener's limits is stored
// with whatever could be parsed, and the listener keeps answering.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { openSmtp, type RawSmtp, reusableDataDir } from "../support/smtp-client.ts";

let ctx: TestContext;
let smtp: SmtpListener;
let inbox: { id: string; address: string };
// One session carries every message, as a busy sending server's would: a message that upset the
// listener would break the session for all the ones after it.
let session: RawSmtp;

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir });
  smtp = await startSmtpListener(ctx.svc, { port: 0 });
  inbox = await makeMailbox(ctx, await makeAccount(ctx), "hostile");
  session = await openSmtp(smtp.port);
  await session.command("EHLO client.test");
});

afterAll(async () => {
  session.close();
  await smtp.close();
  await ctx.close();
});

const crlf = (lines: string[]) => lines.join("\r\n");
const latin1 = (text: string) => Buffer.from(text, "latin1");

/** Delivers over SMTP, expects 250, and returns the one stored row with its raw bytes. */
async function deliver(message: Uint8Array | string, mailFrom = "hostile@example.org") {
  const before = Date.now();
  expect((await session.command(`MAIL FROM:<${mailFrom}>`)).code).toBe(250);
  expect((await session.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
  const reply = await session.data(message);
  // Any 4xx here makes the sending server retry the same bytes for days, then bounce them.
  expect(reply.text).toMatch(/^250 /);
  const id = await newestId();
  const [row] = await ctx.sql`
    select m.*, r.content as raw from messages m join raw_messages r on r.id = m.raw_message_id where m.id = ${id}`;
  expect(Date.parse(row.created_at)).toBeGreaterThanOrEqual(before - 1000);
  // The raw bytes are kept exactly as received, whatever the parse made of them.
  expect(Buffer.from(row.raw).equals(Buffer.isBuffer(message) ? message : Buffer.from(message as string, "latin1"))).toBe(true);
  return row;
}

async function newestId(): Promise<string> {
  const [row] = await ctx.sql`select id from messages where mailbox_id = ${inbox.id} order by created_at desc, id desc limit 1`;
  return row.id;
}

test("an unknown charset in the body and in an encoded word", async () => {
  const row = await deliver(
    Buffer.concat([
      latin1(
        crlf([
          "From: a@example.org",
          "Subject: =?x-no-such-charset?Q?Hello_there?= plain tail",
          'Content-Type: text/plain; charset="x-no-such-charset-42"',
          "Content-Transfer-Encoding: 8bit",
          "",
          "",
        ]),
      ),
      Buffer.from([0x48, 0x69, 0x20, 0xe9, 0xff, 0xfe, 0x0d, 0x0a]),
    ]),
  );
  expect(row.from_addr).toBe("a@example.org");
  expect(row.subject).toContain("plain tail");
  expect(row.body_raw).toContain("Hi ");
});

test("a multipart with no boundary parameter", async () => {
  const row = await deliver(
    crlf([
      "From: b@example.org",
      "Subject: no boundary",
      "MIME-Version: 1.0",
      "Content-Type: multipart/mixed",
      "",
      "--whatever",
      "Content-Type: text/plain",
      "",
      "text nobody delimited",
      "--whatever--",
      "",
    ]),
  );
  expect(row.subject).toBe("no boundary");
});

test("a multipart whose boundary never appears, and one never closed", async () => {
  const never = await deliver(
    crlf([
      "Subject: boundary missing",
      'Content-Type: multipart/alternative; boundary="abc"',
      "",
      "just some text with no parts at all",
      "",
    ]),
  );
  expect(never.subject).toBe("boundary missing");

  const unclosed = await deliver(
    crlf([
      "Subject: never closed",
      'Content-Type: multipart/mixed; boundary="b1"',
      "",
      "--b1",
      "Content-Type: text/plain",
      "",
      "first part, and then the message just ends",
      "",
    ]),
  );
  expect(unclosed.subject).toBe("never closed");
  expect(unclosed.body_clean).toContain("first part");
});

test("multiparts nested 200 levels deep", async () => {
  const depth = 200;
  const lines = ["From: deep@example.org", "Subject: deep", "MIME-Version: 1.0"];
  for (let i = 0; i < depth; i++) lines.push(`Content-Type: multipart/mixed; boundary="b${i}"`, "", `--b${i}`);
  lines.push("Content-Type: text/plain", "", "at the bottom");
  for (let i = depth - 1; i >= 0; i--) lines.push(`--b${i}--`);
  lines.push("");
  const row = await deliver(crlf(lines));
  expect(row.subject).toBe("deep");
  expect(row.from_addr).toBe("deep@example.org");
});

test("a 100 KB header (folded, within the limits) and a 100 KB subject", async () => {
  const folded = (name: string, bytes: number) => `${name}: ${Array.from({ length: bytes / 1000 }, () => "w".repeat(996)).join("\r\n  ")}`;
  const row = await deliver(
    crlf(["From: long@example.org", folded("X-Filler", 100_000), folded("Subject", 100_000), "", "body after long headers", ""]),
  );
  expect(row.from_addr).toBe("long@example.org");
  expect(row.subject.length).toBeGreaterThan(0);
  expect(row.subject.length).toBeLessThanOrEqual(2000);
  expect(row.subject.startsWith("www")).toBe(true);
  expect(row.body_clean).toBe("body after long headers");
});

test("8-bit bytes in headers", async () => {
  const row = await deliver(
    Buffer.concat([
      latin1("From: "),
      Buffer.from([0xc9, 0x6c, 0xe8, 0x76, 0x65]),
      latin1(" <eleve@example.org>\r\nSubject: Caf"),
      Buffer.from([0xe9, 0x20, 0xff, 0xfe, 0x80]),
      latin1(" menu\r\nX-Raw: "),
      Buffer.from([0xf0, 0x28, 0x8c, 0x28]),
      latin1("\r\n\r\nbody\r\n"),
    ]),
  );
  expect(row.from_addr).toBe("eleve@example.org");
  expect(row.subject).toStartWith("Caf");
  expect(row.subject).toEndWith("menu");
});

test("an empty body", async () => {
  const row = await deliver("From: empty@example.org\r\nSubject: empty body\r\n\r\n");
  expect(row.subject).toBe("empty body");
  expect(row.body_raw).toBeNull();
  expect(row.body_clean).toBeNull();
  expect(row.truncated).toBe(false);
});

test("no headers at all: the sender falls back to the envelope", async () => {
  const row = await deliver("\r\nJust a body, no header above it.\r\n", "envelope@example.org");
  expect(row.from_addr).toBe("envelope@example.org");
  expect(row.subject).toBe("");
  expect(row.body_clean).toContain("Just a body");
});

test("text lines that are not headers at all", async () => {
  const row = await deliver("hello there\r\nthis has no colon and no blank line\r\n", "noheader@example.org");
  expect(row.from_addr).toBe("noheader@example.org");
  expect(row.subject).toBe("");
});

test("a message that is only a header, with no blank line and no body", async () => {
  const row = await deliver("Subject: only a header\r\n");
  expect(row.subject).toBe("only a header");
  expect(row.body_raw).toBeNull();
});

test("a message of zero bytes", async () => {
  const row = await deliver("", "zero@example.org");
  expect(row.from_addr).toBe("zero@example.org");
  expect(row.subject).toBe("");
});

test("NUL bytes in the body", async () => {
  const row = await deliver(
    Buffer.concat([latin1("From: nul@example.org\r\nSubject: nul body\r\n\r\nbefore"), Buffer.from([0]), latin1("after\r\n")]),
  );
  expect(row.subject).toBe("nul body");
  expect(row.body_clean).toContain("before");
  expect(row.body_clean).toContain("after");
  expect(row.body_clean).not.toContain("\0");
});

test("NUL bytes in the subject and the sender", async () => {
  const row = await deliver(
    Buffer.concat([
      latin1("From: nul"),
      Buffer.from([0]),
      latin1("x@example.org\r\nSubject: nul"),
      Buffer.from([0]),
      latin1("subject\r\n\r\nbody\r\n"),
    ]),
  );
  expect(row.subject).toStartWith("nul");
  expect(row.subject).not.toContain("\0");
  expect(row.from_addr).not.toContain("\0");
});

test("an encoded word decoding to NUL in the subject", async () => {
  const row = await deliver("From: enc@example.org\r\nSubject: =?utf-8?Q?a=00b?=\r\n\r\nbody\r\n");
  expect(row.subject).not.toContain("\0");
});

test("NUL bytes in Message-ID, In-Reply-To and References", async () => {
  const row = await deliver(
    Buffer.concat([
      latin1("From: ids@example.org\r\nSubject: nul ids\r\nMessage-ID: <a"),
      Buffer.from([0]),
      latin1("b@example.org>\r\nIn-Reply-To: <c"),
      Buffer.from([0]),
      latin1("d@example.org>\r\nReferences: <e"),
      Buffer.from([0]),
      latin1("f@example.org>\r\n\r\nbody\r\n"),
    ]),
  );
  expect(row.subject).toBe("nul ids");
  expect(String(row.rfc_message_id ?? "")).not.toContain("\0");
});

test("an attachment with a NUL in its filename and a broken base64 body", async () => {
  const row = await deliver(
    crlf([
      "From: att@example.org",
      "Subject: odd attachment",
      'Content-Type: multipart/mixed; boundary="q"',
      "",
      "--q",
      "Content-Type: text/plain",
      "",
      "see attachment",
      "--q",
      'Content-Type: application/x-bogus/extra; name="a=00b.bin"',
      "Content-Disposition: attachment; filename*=utf-8''evil%00name%2F..%2F..%2Fetc%2Fpasswd",
      "Content-Transfer-Encoding: base64",
      "",
      "!!!! not base64 at all ####",
      "--q--",
      "",
    ]),
  );
  expect(row.subject).toBe("odd attachment");
  const attachments = await ctx.sql`select filename, content_type from attachments where message_id = ${row.id}`;
  for (const a of attachments) expect(String(a.filename ?? "")).not.toContain("\0");
});

test("bad transfer encodings: broken quoted-printable and an unknown encoding", async () => {
  const row = await deliver(
    crlf([
      "From: qp@example.org",
      "Subject: broken qp",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: x-martian",
      "",
      "=ZZ=4 half =E2=82 escape=",
      "",
    ]),
  );
  expect(row.subject).toBe("broken qp");
  expect(row.body_raw).not.toBeNull();
});

test("after all of that the listener still answers and stores the next message", async () => {
  const conn = await openSmtp(smtp.port);
  try {
    expect((await conn.command("EHLO client.test")).code).toBe(250);
    expect((await conn.command("NOOP")).code).toBe(250);
  } finally {
    conn.close();
  }
  const row = await deliver("From: calm@example.org\r\nSubject: calm after the storm\r\n\r\nhello\r\n");
  expect(row.body_clean).toBe("hello");
});
