// Who may correct a verdict: can_read keys of the message's account, a bound key only on its own
// mailbox; everyone else gets the byte-identical 404 of GET /messages/{id}. One account's
// corrections never reach another's statistics.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { toRaw, unwantedMessage } from "../fixtures/feedback/stream.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxRow } from "../support/mailbox-row.ts";

let ctx: TestContext;
let owner: Fixture;
let stranger: Fixture;
let message: string;
let inbox: { id: string; address: string };
let second: { id: string; address: string };

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
  stranger = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "inbox");
  second = await makeMailbox(ctx, owner, "second");
  const [id] = await acceptInbound(ctx.svc, toRaw(unwantedMessage(1), inbox.address), [(await mailboxRow(ctx, inbox.id))!], {
    remoteIp: null,
    helo: null,
    mailFrom: null,
  });
  await screenMessage(ctx.svc, id!);
  message = id!;
});
afterAll(() => ctx.close());

const post = (key: string, id = message) => ctx.request("POST", `/api/v1/messages/${id}/feedback`, { key, body: { verdict: "spam" } });

test("another account's key and a key bound to another mailbox get GET's 404, byte for byte; nothing is recorded", async () => {
  const missing = await ctx.request("GET", "/api/v1/messages/msg_missing", { key: owner.key });
  const bound = await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: second.id });
  for (const key of [stranger.key, bound]) {
    const get = await ctx.request("GET", `/api/v1/messages/${message}`, { key });
    const answer = await post(key);
    expect(answer.status).toBe(404);
    expect(answer.text).toBe(get.text);
    expect(answer.text).toBe(missing.text);
    const undo = await ctx.request("DELETE", `/api/v1/messages/${message}/feedback`, { key });
    expect(undo.status).toBe(404);
    expect(undo.text).toBe(missing.text);
  }
  expect((await ctx.sql`select 1 from message_feedback`).length).toBe(0);
  expect((await ctx.sql`select 1 from account_learning`).length).toBe(0);
});

test("a key that cannot read gets 403 key_scope; a bootstrap key is refused; a bound key on its own mailbox may", async () => {
  const blind = await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false });
  expect(await post(blind)).toMatchObject({ status: 403, body: { code: "key_scope", error: "this api key cannot read messages" } });
  const bootstrap = await makeKey(ctx, { accountId: owner.accountId, scope: "bootstrap" });
  expect((await post(bootstrap)).status).toBe(403);
  // can_send is not needed: correcting a verdict is about reading mail
  const readOnly = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp", mailboxId: inbox.id, canSend: false });
  expect((await post(readOnly)).status).toBe(201);
  const [row] = await ctx.sql`select source, actor, account_id from message_feedback`;
  expect(row).toMatchObject({ source: "api", account_id: owner.accountId });
});

test("corrections count only in their own account's statistics", async () => {
  const [{ spam }] = await ctx.sql`select spam_messages as spam from account_learning where account_id = ${owner.accountId}`;
  expect(spam).toBe(1);
  expect((await ctx.sql`select 1 from account_token_stats where account_id = ${stranger.accountId}`).length).toBe(0);
});
