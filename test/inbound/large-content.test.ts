// Content of many megabytes takes other paths than small content: it reaches the database in
// slices before the accept statement (core/inbound/staged-content.ts), and screening and
// attachment reading read it back a slice at a time (core/bytea-slices.ts). The bytes must come
// out as they went in, copies must still be recognized, and no slice may stay behind.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import MailComposer from "nodemailer/lib/mail-composer";
import { fullContent, smallContent } from "../../src/core/bytea-slices.ts";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import { screenMessage } from "../../src/core/screening/index.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

// Screening a message of megabytes on a loaded machine takes a while; nothing here is timed.
setDefaultTimeout(120_000);

let ctx: TestContext;
let mailbox: Mailbox;
const envelope = { remoteIp: "192.0.2.1", helo: "sender.example", mailFrom: "lee@example.org" };
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

beforeAll(async () => {
  ctx = await makeTestContext();
  const { id } = await makeMailbox(ctx, await makeAccount(ctx), "large");
  [mailbox] = (await ctx.sql`select * from mailboxes where id = ${id}`) as unknown as Mailbox[];
});

afterAll(async () => {
  await ctx?.close();
});

/** Bytes that no slice boundary can hide a mistake in: each position differs from its neighbours. */
function pattern(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed + (i >> 8)) & 0xff;
  return bytes;
}

async function compose(messageId: string, attachment: Buffer): Promise<Buffer> {
  return new MailComposer({
    from: "lee@example.org",
    to: mailbox.address,
    subject: `large ${messageId}`,
    messageId: `<${messageId}>`,
    text: "The file is attached.",
    attachments: [{ filename: "data.bin", contentType: "application/octet-stream", content: attachment }],
  })
    .compile()
    .build();
}

test("a message and an attachment over a MiB are stored byte for byte, read back whole, and leave no slices", async () => {
  const attachment = pattern(1536 * 1024 + 12_345, 7);
  const raw = await compose("large-1@example.org", attachment);
  const [id] = await acceptInbound(ctx.svc, raw, [mailbox], envelope);

  const [stored] = await ctx.sql`
    select r.id as raw_id, r.size, r.sha256, ${smallContent(ctx.sql, "r.content")}
    from messages m join raw_messages r on r.id = m.raw_message_id where m.id = ${id!}`;
  expect(stored!.content).toBeNull();
  expect({ size: stored!.size, content_size: stored!.content_size, sha256: stored!.sha256 }).toEqual({
    size: raw.byteLength,
    content_size: raw.byteLength,
    sha256: sha256(raw),
  });
  const rawBack = await fullContent(ctx.sql, "raw_messages", stored!.raw_id, stored as never);
  expect(Buffer.from(rawBack!).equals(raw)).toBe(true);

  const [file] = await ctx.sql`select id, size, sha256, ${smallContent(ctx.sql, "content")} from attachments where message_id = ${id!}`;
  expect({ size: file!.size, sha256: file!.sha256 }).toEqual({ size: attachment.byteLength, sha256: sha256(attachment) });
  const fileBack = await fullContent(ctx.sql, "attachments", file!.id, file as never);
  expect(Buffer.from(fileBack!).equals(attachment)).toBe(true);

  const [{ left }] = await ctx.sql`select count(*)::int as left from inbound_content_slices`;
  expect(left).toBe(0);

  // Screening reads the large raw message and attachment through the slices.
  await screenMessage(ctx.svc, id!);
  const [screened] = await ctx.sql`
    select m.processed_at, a.text_status from messages m join attachments a on a.message_id = m.id where m.id = ${id!}`;
  expect(screened!.processed_at).not.toBeNull();
  expect(screened!.text_status).not.toBeNull();
});

test("a large copy of an earlier message is recognized and stored once, its slices deleted", async () => {
  const raw = await compose("large-2@example.org", pattern(1280 * 1024, 3));
  const first = await acceptInbound(ctx.svc, raw, [mailbox], envelope);
  // The same message again by another path: one more trace field above it.
  const again = Buffer.concat([Buffer.from("Received: from backup.example by mx.example; Tue, 24 Nov 2026 10:00:01 +0000\r\n"), raw]);
  const second = await acceptInbound(ctx.svc, again, [mailbox], envelope);
  expect(second).toEqual(first);
  const [{ count }] = await ctx.sql`select count(*)::int as count from messages where rfc_message_id = '<large-2@example.org>'`;
  expect(count).toBe(1);
  const [{ left }] = await ctx.sql`select count(*)::int as left from inbound_content_slices`;
  expect(left).toBe(0);
});

test("small content goes into the statement whole and comes back whole", async () => {
  const attachment = pattern(10_000, 5);
  const raw = await compose("small-1@example.org", attachment);
  const [id] = await acceptInbound(ctx.svc, raw, [mailbox], envelope);
  const [file] = await ctx.sql`select id, ${smallContent(ctx.sql, "content")} from attachments where message_id = ${id!}`;
  expect(Buffer.from(file!.content).equals(attachment)).toBe(true);
  expect(await fullContent(ctx.sql, "attachments", file!.id, file as never)).toBe(file!.content);
});

test("a message handed over as blocks (as the SMTP listener keeps it) is stored as the same bytes and is the same copy", async () => {
  const raw = await compose("blocks-1@example.org", pattern(2300 * 1024, 11));
  // Uneven blocks, the first ending inside the header section (copyStart then reads past it).
  const cuts = [40, 1024 * 1024 + 40, 1024 * 1024 + 41, 2 * 1024 * 1024 + 99, raw.byteLength];
  const blocks = cuts.map((end, i) => raw.subarray(i === 0 ? 0 : cuts[i - 1], end));
  const [id] = await acceptInbound(ctx.svc, blocks, [mailbox], envelope);
  const [stored] = await ctx.sql`
    select r.id as raw_id, r.size, r.sha256, ${smallContent(ctx.sql, "r.content")}
    from messages m join raw_messages r on r.id = m.raw_message_id where m.id = ${id!}`;
  expect({ size: stored!.size, sha256: stored!.sha256 }).toEqual({ size: raw.byteLength, sha256: sha256(raw) });
  const rawBack = await fullContent(ctx.sql, "raw_messages", stored!.raw_id, stored as never);
  expect(Buffer.from(rawBack!).equals(raw)).toBe(true);
  // The whole buffer with a trace field above it is a copy of the blocks: both digests agree.
  const again = Buffer.concat([Buffer.from("Received: from backup.example by mx.example; Tue, 24 Nov 2026 10:00:01 +0000\r\n"), raw]);
  expect(await acceptInbound(ctx.svc, again, [mailbox], envelope)).toEqual([id!]);
  // And in blocks of a MiB, the header section within the first, as the listener gathers them.
  const mib = 1024 * 1024;
  const inMiBs = Array.from({ length: Math.ceil(again.byteLength / mib) }, (_, i) => again.subarray(i * mib, (i + 1) * mib));
  expect(await acceptInbound(ctx.svc, inMiBs, [mailbox], envelope)).toEqual([id!]);
  const [{ left }] = await ctx.sql`select count(*)::int as left from inbound_content_slices`;
  expect(left).toBe(0);
});
