// The search document is written after the SMTP 250, by the worker's screening (sql/0020): the
// accept transaction leaves it null, screening fills it with exactly the document sql/0012 used
// to generate (same 'simple' configuration and A/B/C weights), and outbound mail is searchable
// as soon as it is recorded.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;
let inbox: Mailbox;

beforeAll(async () => {
  ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  owner = await makeAccount(ctx);
  inbox = (await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${(await makeMailbox(ctx, owner, "later")).id}`)[0]!;
});

afterAll(async () => {
  await ctx.close();
});

const search = async (q: string) =>
  (await ctx.request("GET", `/api/v1/search?mailbox_id=${inbox.id}&q=${encodeURIComponent(q)}`, { key: owner.key })).body.results.map(
    (r: any) => r.id,
  );

// sql/0012's generated expression, verbatim: what search documents were before this change.
const generatedBefore = (id: string) => ctx.sql`
  select search = (
    setweight(to_tsvector('simple'::regconfig, coalesce(subject, '')), 'A') ||
    setweight(to_tsvector('simple'::regconfig, coalesce(from_addr, '') || ' ' || translate(coalesce(from_addr, ''), '@.', '  ')), 'A') ||
    setweight(to_tsvector('simple'::regconfig, left(coalesce(body_clean, ''), 100000)), 'B') ||
    setweight(to_tsvector('simple'::regconfig, left(coalesce(attachment_text, ''), 100000)), 'C')
  ) as same, search is null as missing, attachment_text
  from messages where id = ${id}`;

test("the accept transaction stores no search document; screening writes the one 0012 generated", async () => {
  const raw = [
    "From: Quinn Vega <quinn@harbour.example>",
    `To: ${inbox.address}`,
    "Subject: Berth schedule",
    "MIME-Version: 1.0",
    "Content-Type: multipart/mixed; boundary=b0",
    "",
    "--b0",
    "Content-Type: text/plain",
    "",
    "The tanker Marisol docks on Tuesday.",
    "--b0",
    "Content-Type: text/plain; name=manifest.txt",
    "Content-Disposition: attachment; filename=manifest.txt",
    "",
    "containers of kumquats",
    "--b0--",
    "",
  ].join("\r\n");
  // What the SMTP listener commits before its 250.
  const [id] = await acceptInbound(ctx.svc, Buffer.from(raw), [inbox], { remoteIp: null, helo: null, mailFrom: "quinn@harbour.example" });
  const [accepted] = await generatedBefore(id!);
  expect(accepted!.missing).toBe(true);
  expect(await search("marisol")).toEqual([]);

  await screenMessage(ctx.svc, id!);
  const [screened] = await generatedBefore(id!);
  expect(screened!.missing).toBe(false);
  expect(screened!.same).toBe(true);
  expect(screened!.attachment_text).toContain("kumquats");
  // Subject, sender, body and attachment text are all found, with the same ranking weights.
  for (const word of ["berth", "marisol", "kumquats", "harbour", "quinn@harbour.example"]) expect(await search(word)).toEqual([id]);
  const [weights] = await ctx.sql`
    select ts_rank('{0.1, 0.3, 0.6, 1.0}', search, 'berth'::tsquery) > ts_rank('{0.1, 0.3, 0.6, 1.0}', search, 'marisol'::tsquery) as subject_over_body,
      ts_rank('{0.1, 0.3, 0.6, 1.0}', search, 'marisol'::tsquery) > ts_rank('{0.1, 0.3, 0.6, 1.0}', search, 'kumquats'::tsquery) as body_over_attachment
    from messages where id = ${id!}`;
  expect(weights).toEqual({ subject_over_body: true, body_over_attachment: true });
});

test("outbound mail is searchable once recorded, as before", async () => {
  const sent = await ctx.request("POST", "/api/v1/send", {
    key: owner.key,
    body: { mailbox_id: inbox.id, to: "someone@elsewhere.example", subject: "Quayside invoice", text: "Payment for the gantry crane." },
  });
  expect(sent.status).toBeLessThan(300);
  const [row] = await generatedBefore(sent.body.id);
  expect(row).toMatchObject({ missing: false, same: true });
  expect(await search("gantry")).toEqual([sent.body.id]);
});
