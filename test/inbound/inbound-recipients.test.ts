// The one recipient switch the SMTP listener and the local transport share: each address of an
// envelope is stored in our mailbox, applied as an unsubscribe, or reported unknown or foreign,
// and the mailboxes' copies are stored together.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { receiveForRecipients } from "../../src/core/inbound/recipients.ts";
import { createUnsubscribeLinks } from "../../src/core/outbound/unsubscribe.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mime } from "../support/mail-fixtures.ts";

let ctx: TestContext;
let owner: Fixture;

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
});
afterAll(() => ctx.close());

const envelope = { remoteIp: null, helo: null, mailFrom: "lee@example.org" };

test("mailboxes are stored, an unsubscribe is applied, unknown and foreign addresses are reported in order", async () => {
  const first = await makeMailbox(ctx, owner, "switch-one");
  const second = await makeMailbox(ctx, owner, "switch-two");
  const raw = new TextEncoder().encode(mime({ from: "lee@example.org", to: first.address, subject: "Hello", text: "Hello there" }));
  const [seed] = (await receiveForRecipients(ctx.svc, raw, [first.address], envelope)).stored;
  const links = await createUnsubscribeLinks(ctx.sql, ctx.config, {
    accountId: owner.accountId,
    address: "pat@example.net",
    messageId: seed!,
  });
  const unsubscribe = /^mailto:([^?]+)/.exec(links.mailto)![1]!;
  const unknown = `nobody-here@${ctx.config.sharedDomain}`;

  const receipt = await receiveForRecipients(
    ctx.svc,
    raw,
    [first.address, unsubscribe, unknown, "someone@elsewhere.example", second.address],
    envelope,
  );

  expect(receipt.outcomes).toEqual(["stored", "unsubscribed", "unknown_mailbox", "not_our_domain", "stored"]);
  expect(receipt.stored).toHaveLength(2);
  const rows = await ctx.sql`select mailbox_id from messages where id in ${ctx.sql(receipt.stored)} order by mailbox_id`;
  expect(rows.map((row) => row.mailbox_id).sort()).toEqual([first.id, second.id].sort());
  const [suppressed] = await ctx.sql`select reason from suppressions where account_id = ${owner.accountId} and address = 'pat@example.net'`;
  expect(suppressed?.reason).toBe("unsubscribe");
});

test("no mailbox among the recipients stores nothing", async () => {
  const raw = new TextEncoder().encode(mime({ from: "lee@example.org", to: "x@elsewhere.example", subject: "Hi", text: "Hi" }));
  const before = await ctx.sql`select count(*)::int as n from messages`;
  const receipt = await receiveForRecipients(ctx.svc, raw, [`ghost@${ctx.config.sharedDomain}`, "x@elsewhere.example"], envelope);
  expect(receipt).toEqual({ stored: [], outcomes: ["unknown_mailbox", "not_our_domain"] });
  expect((await ctx.sql`select count(*)::int as n from messages`)[0]!.n).toBe(before[0]!.n);
});
