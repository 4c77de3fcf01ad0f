// sql/0022: the large columns of every accepted and sent message are compressed with lz4 where the
// server has it, and the migration leaves pglz in place (without failing) where it does not. A
// message written afterwards is stored lz4-compressed and reads back byte for byte.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let inbox: Mailbox;

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  const owner = await makeAccount(ctx);
  inbox = (await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${(await makeMailbox(ctx, owner, "toast")).id}`)[0]!;
});

afterAll(async () => {
  await ctx.close();
});

async function serverHasLz4(): Promise<boolean> {
  try {
    await ctx.sql.begin(async (tx) => {
      await tx`create temporary table lz4_probe (c text compression lz4) on commit drop`;
    });
    return true;
  } catch {
    return false;
  }
}

test("the large message columns use lz4 when the server has it, pglz (the default) otherwise", async () => {
  const rows = await ctx.sql<{ table: string; column: string; method: string }[]>`
    select c.relname as table, a.attname as column, a.attcompression as method
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    where (c.relname, a.attname) in (('raw_messages', 'content'), ('messages', 'body_raw'), ('messages', 'body_clean'),
      ('messages', 'raw_outbound'), ('attachments', 'content'))
      and c.relnamespace = 'public'::regnamespace
    order by 1, 2`;
  expect(rows.length).toBe(5);
  const expected = (await serverHasLz4()) ? "l" : "";
  for (const row of rows) expect(row).toEqual({ ...row, method: expected });
});

test("a message accepted afterwards is stored compressed and reads back byte for byte", async () => {
  const body = Array.from({ length: 600 }, (_, i) => `line ${i} of a long and repetitive message body`).join("\r\n");
  const raw = new TextEncoder().encode(
    `From: a@example.org\r\nTo: ${inbox.address}\r\nSubject: toast\r\nMessage-ID: <toast-1@example.org>\r\n\r\n${body}\r\n`,
  );
  const [id] = await acceptInbound(ctx.svc, raw, [inbox], { remoteIp: "127.0.0.1", helo: "example.org", mailFrom: "a@example.org" });
  const [row] = await ctx.sql<{ content: Uint8Array; method: string | null; body_raw: string }[]>`
    select r.content, pg_column_compression(r.content) as method, m.body_raw
    from messages m join raw_messages r on r.id = m.raw_message_id where m.id = ${id!}`;
  expect(Buffer.from(row!.content).equals(Buffer.from(raw))).toBe(true);
  expect(row!.body_raw).toContain("line 599 of a long");
  expect(row!.method).toBe((await serverHasLz4()) ? "lz4" : "pglz");
});

test("staged slices are stored uncompressed: they live for one accept, and the assembled content is compressed once", async () => {
  const [column] = await ctx.sql`
    select attstorage from pg_attribute where attrelid = 'inbound_content_slices'::regclass and attname = 'bytes'`;
  expect(column?.attstorage).toBe("e");
});
