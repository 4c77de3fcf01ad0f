// The listener's memory of found recipients: a found mailbox is answered from memory for a few
// seconds (no round trip), an unknown address is looked up again every time, so a mailbox made a
// moment ago receives at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeRecipientCache } from "../../smtp/recipient-cache.ts";
import { makeSql } from "../../src/db.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let owner: Fixture;

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
});
afterAll(() => ctx.close());

test("an unknown address is not remembered: the mailbox created after it is found at once", async () => {
  const lookup = makeRecipientCache(ctx.svc);
  const address = `agent-cache-late@${ctx.config.sharedDomain}`;
  expect((await lookup(address)).kind).toBe("unknown_mailbox");
  const mailbox = await makeMailbox(ctx, owner, "cache-late");
  expect(mailbox.address).toBe(address);
  const found = await lookup(address);
  expect(found.kind === "mailbox" && found.mailbox.id).toBe(mailbox.id);
});

test("a found mailbox is answered without the database until its entry ends", async () => {
  const mailbox = await makeMailbox(ctx, owner, "cache-found");
  // A pool of its own, ended after the first look-up: a second one that went to the database would fail.
  const sql = makeSql(new URL(ctx.svc.config.databaseUrl!).toString(), { max: 1 });
  let now = 1_000_000;
  const lookup = makeRecipientCache({ ...ctx.svc, sql }, () => now);
  const first = await lookup(mailbox.address.toUpperCase());
  expect(first.kind === "mailbox" && first.mailbox.id).toBe(mailbox.id);
  await sql.end();
  now += 4_000;
  const again = await lookup(mailbox.address);
  expect(again.kind === "mailbox" && again.mailbox.id).toBe(mailbox.id);
  now += 2_000;
  await expect(lookup(mailbox.address)).rejects.toThrow();
});
