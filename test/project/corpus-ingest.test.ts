// The whole SpamAssassin public corpus (6,046 real messages, spam and ham from 2002-2003, broken
// MIME and 8-bit headers included) through the real SMTP listener over loopback: every message
// is answered 250 and stored byte for byte, and the listener is still there afterwards.
// About 75-110 s on a busy 2-core machine; scripts/ingest-corpus.ts runs the same from the shell.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CorpusMessage, ingest, loadCorpus, missingFromStore } from "../../scripts/ingest-corpus.ts";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { reusableDataDir, sendMail } from "../support/smtp-client.ts";

let ctx: TestContext;
let smtp: SmtpListener;
let corpus: CorpusMessage[];

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir });
  smtp = await startSmtpListener(ctx.svc, { port: 0 });
  corpus = loadCorpus();
});

afterAll(async () => {
  await smtp.close();
  await ctx.close();
});

test("the corpus is the whole public corpus, as bytes", () => {
  expect(corpus).toHaveLength(6046);
  const groups = new Set(corpus.map((m) => m.name.split("/")[0]));
  expect([...groups].sort()).toEqual(["easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2"]);
  // Some messages are not UTF-8: the raw files are used, not the package's decoded text.
  expect(corpus.some((m) => !isUtf8(m.raw))).toBe(true);
  expect(corpus.every((m) => !m.raw.subarray(0, 5).equals(Buffer.from("From ")))).toBe(true);
});

test("every message is accepted and stored byte for byte; the listener survives", async () => {
  const mailbox = await makeMailbox(ctx, await makeAccount(ctx), "corpus");
  const result = await ingest({ port: smtp.port, to: mailbox.address, messages: corpus, concurrency: 8 });
  console.log(
    `corpus ingest: ${result.sent} messages, ${(result.bytes / 1024 / 1024).toFixed(1)} MB in ${result.seconds.toFixed(1)} s: ` +
      `${result.perSecond.toFixed(0)} messages/s (8 connections)`,
  );

  expect(result.refused).toEqual([]);
  expect(result.accepted).toBe(corpus.length);
  const [rows] = await ctx.sql`select count(*)::int as n from messages where mailbox_id = ${mailbox.id}`;
  expect(rows.n).toBe(corpus.length);
  expect(await missingFromStore(ctx.sql, mailbox.id, corpus)).toEqual([]);
  // What could be parsed was: senders and subjects for nearly all of real mail.
  const [parsed] = await ctx.sql`
    select count(*) filter (where from_addr like '%@%')::int as with_sender, count(*) filter (where subject <> '')::int as with_subject
    from messages where mailbox_id = ${mailbox.id}`;
  expect(parsed.with_sender).toBeGreaterThan(corpus.length * 0.99);
  expect(parsed.with_subject).toBeGreaterThan(corpus.length * 0.99);

  const after = await sendMail(smtp.port, {
    from: "after@example.org",
    to: mailbox.address,
    subject: "after the corpus",
    text: "still here",
  });
  expect(after.response).toMatch(/^250 /);
}, 300_000);

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
