// POST /send composes and signs once its checks have passed (while a reply's loop guard reads), and reads the recipient's
// policy beside the mailbox (src/core/outbound/send.ts): the answers stay those of the checks in
// the order docs/api.md lists, and what was composed ahead for a send that does not go out is
// neither delivered nor stored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey } from "../../src/core/accounts/keys.ts";
import { updateMailboxSettings } from "../../src/core/mailboxes.ts";
import { addSendListEntry } from "../../src/core/outbound/sendlists.ts";
import { addSuppression } from "../../src/core/outbound/suppressions.ts";
import { generateDkimKeyPair } from "../../src/mail/dkim-keys.ts";
import { makeAccount, makeMailbox } from "../support/context.ts";
import { type Outbound, startOutbound } from "../support/outbound.ts";

let o: Outbound;
let key: string;
let accountId: string;
/** A mailbox of a custom domain whose DKIM key cannot sign: composing ahead fails for it. */
let brokenMailboxId: string;

beforeAll(async () => {
  o = await startOutbound();
  const [account] = await o.ctx.sql`insert into accounts (id, name, plan) values ('acc_ahead', 'Ahead', 'paid') returning id`;
  accountId = account!.id;
  key = (await createKey(o.ctx.sql, { accountId, scope: "api" })).secret;
  const pem = (await generateDkimKeyPair()).privateKeyPem;
  // A PEM that has the right frame but no key inside: importing it fails at signing time.
  const broken = pem.replace(/(-----BEGIN PRIVATE KEY-----)[\s\S]*(-----END PRIVATE KEY-----)/, "$1\nAAAA\n$2");
  await o.ctx.sql`
    insert into domains (id, account_id, name, status, dkim_selector, dkim_private_key, dkim_public_key, records)
    values ('dom_ahead', ${accountId}, 'ahead.example', 'verified', 'svc1', ${broken}, 'x', '[]')`;
  const created = await o.ctx.request("POST", "/api/v1/mailboxes", { key, body: { slug: "ahead", domain_id: "dom_ahead" } });
  expect(created.status).toBe(201);
  brokenMailboxId = created.body.id;
});

afterAll(() => o.close());

const outboundRows = (mailboxId: string) => o.ctx.sql`select id from messages where mailbox_id = ${mailboxId} and direction = 'out'`;

describe("composing ahead of the checks", () => {
  test("a key that cannot sign: the suppression's 422 and the send list's 403 still come first", async () => {
    await addSuppression(o.ctx.sql, { accountId, address: "gone@example.org", reason: "bounce" });
    await addSendListEntry(o.ctx.sql, { accountId, kind: "block", pattern: "blocked.example" });
    const atSink = o.sink.messages.length;
    const suppressed = await o.send({ mailbox_id: brokenMailboxId, to: "gone@example.org", text: "Hi" }, key);
    expect(suppressed.status).toBe(422);
    const blocked = await o.send({ mailbox_id: brokenMailboxId, to: "x@blocked.example", text: "Hi" }, key);
    expect(blocked.status).toBe(403);
    expect(o.sink.messages.length).toBe(atSink);
    expect(await outboundRows(brokenMailboxId)).toHaveLength(0);
  });

  test("a key that cannot sign, recipient allowed: the signing error, nothing delivered or stored, the client_id free again", async () => {
    const atSink = o.sink.messages.length;
    const body = { mailbox_id: brokenMailboxId, to: "fine@example.org", text: "Hi", client_id: "ahead-broken" };
    const first = await o.send(body, key);
    expect(first.status).toBe(500);
    expect(o.sink.messages.length).toBe(atSink);
    expect(await outboundRows(brokenMailboxId)).toHaveLength(0);
    // Released, not stored: the same client_id is evaluated again (and fails again the same way).
    expect((await o.send(body, key)).status).toBe(500);
    const [claim] = await o.ctx.sql`select count(*)::int as n from idempotency_keys where client_id = 'ahead-broken'`;
    expect(claim!.n).toBe(0);
  });

  test("a mailbox that holds for approval: 202, nothing delivered or stored", async () => {
    const owner = await makeAccount(o.ctx);
    const mailbox = await makeMailbox(o.ctx, owner, "ahead-approval");
    await updateMailboxSettings(o.ctx.sql, { accountId: owner.accountId }, mailbox.id, { requireApproval: true });
    const atSink = o.sink.messages.length;
    const response = await o.send({ mailbox_id: mailbox.id, to: "someone@example.org", text: "Hi" }, owner.key);
    expect(response.status).toBe(202);
    expect(o.sink.messages.length).toBe(atSink);
    expect(await outboundRows(mailbox.id)).toHaveLength(0);
  });
});

describe("the policy read with the mailbox", () => {
  test("an unknown mailbox is 404 even for a suppressed recipient", async () => {
    const response = await o.send({ mailbox_id: "mbx_nonexistent", to: "gone@example.org", text: "Hi" }, key);
    expect(response.status).toBe(404);
  });

  test("the lists are the mailbox's own: a block on another mailbox of the account does not apply", async () => {
    const owner = await makeAccount(o.ctx);
    const sender = await makeMailbox(o.ctx, owner, "ahead-sender");
    const other = await makeMailbox(o.ctx, owner, "ahead-other");
    await addSendListEntry(o.ctx.sql, { accountId: owner.accountId, mailboxId: other.id, kind: "block", pattern: "pat@example.org" });
    expect((await o.send({ mailbox_id: sender.id, to: "pat@example.org", text: "Hi" }, owner.key)).status).toBe(201);
    expect((await o.send({ mailbox_id: other.id, to: "PAT@example.org", text: "Hi" }, owner.key)).status).toBe(403);
  });
});
