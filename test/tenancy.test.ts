// Tenancy in core: every core function that acts on a tenant's row by id takes the account and
// scopes its SQL by it, so another account's id is not found there and its row stays untouched.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { revokeKey } from "../src/core/accounts/keys.ts";
import { CoreError } from "../src/core/errors.ts";
import { findMailbox, updateMailboxSettings } from "../src/core/mailboxes.ts";
import { addSendListEntry, removeSendListEntry } from "../src/core/outbound/sendlists.ts";
import { addSuppression, removeSuppression } from "../src/core/outbound/suppressions.ts";
import { listAttempts, redriveDelivery } from "../src/core/webhooks/endpoint.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "./support/context.ts";
import { mime, receive } from "./support/mail-fixtures.ts";

let ctx: TestContext;
let owner: Fixture;
let other: Fixture;

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
  other = await makeAccount(ctx);
});
afterAll(() => ctx.close());

describe("another account's id is not found, and the row is untouched", () => {
  test("revokeKey", async () => {
    expect(await revokeKey(ctx.sql, other.accountId, owner.keyId)).toBeNull();
    const [row] = await ctx.sql`select revoked_at from api_keys where id = ${owner.keyId}`;
    expect(row!.revoked_at).toBeNull();
    expect((await ctx.request("GET", "/api/v1/mailboxes", { key: owner.key })).status).toBe(200);
    // The owner can: the first call revokes, the second finds it already revoked.
    const spare = await makeAccount(ctx);
    expect(await revokeKey(ctx.sql, spare.accountId, spare.keyId)).toBe(true);
    expect(await revokeKey(ctx.sql, spare.accountId, spare.keyId)).toBe(false);
    expect(await revokeKey(ctx.sql, spare.accountId, "key_missing")).toBeNull();
  });

  test("removeSendListEntry", async () => {
    const entry = await addSendListEntry(ctx.sql, { accountId: owner.accountId, kind: "block", pattern: "tenancy@example.org" });
    expect(await removeSendListEntry(ctx.sql, other.accountId, entry.id)).toBe(false);
    expect((await ctx.sql`select 1 from send_list_entries where id = ${entry.id}`).length).toBe(1);
    expect(await removeSendListEntry(ctx.sql, owner.accountId, entry.id)).toBe(true);
    expect((await ctx.sql`select 1 from send_list_entries where id = ${entry.id}`).length).toBe(0);
  });

  test("removeSuppression", async () => {
    const suppression = await addSuppression(ctx.sql, { accountId: owner.accountId, address: "tenancy@example.org", reason: "manual" });
    expect(await removeSuppression(ctx.sql, other.accountId, suppression.id)).toBe(false);
    expect((await ctx.sql`select 1 from suppressions where id = ${suppression.id}`).length).toBe(1);
    expect(await removeSuppression(ctx.sql, owner.accountId, suppression.id)).toBe(true);
    expect((await ctx.sql`select 1 from suppressions where id = ${suppression.id}`).length).toBe(0);
  });

  test("updateMailboxSettings", async () => {
    const mailbox = await makeMailbox(ctx, owner, "tenancy");
    const error = await updateMailboxSettings(ctx.sql, other.accountId, mailbox.id, { requireApproval: true, deliverSpam: true }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(CoreError);
    expect((error as CoreError).code).toBe("not_found");
    const [row] = await ctx.sql`select require_approval, deliver_spam from mailboxes where id = ${mailbox.id}`;
    expect(row).toEqual({ require_approval: false, deliver_spam: false });
    expect((await updateMailboxSettings(ctx.sql, owner.accountId, mailbox.id, { requireApproval: true })).require_approval).toBe(true);
  });

  test("findMailbox", async () => {
    const mailbox = await makeMailbox(ctx, owner, "tenancy-find");
    expect(await findMailbox(ctx.sql, other.accountId, mailbox.id)).toBeNull();
    expect((await findMailbox(ctx.sql, owner.accountId, mailbox.id))?.id).toBe(mailbox.id);
  });

  describe("webhook deliveries", () => {
    let deliveryId: string;

    beforeAll(async () => {
      // A dead-lettered delivery of the owner's with one recorded attempt; no worker runs here.
      await ctx.sql`insert into webhook_endpoints (account_id, url, secret) values (${owner.accountId}, 'https://hooks.example.org/in', 'whsec_tenancy_0123456789')`;
      const mailbox = await makeMailbox(ctx, owner, "tenancy-hooks");
      const messageId = await receive(
        ctx,
        mailbox.id,
        mime({ from: "lee@example.org", to: mailbox.address, subject: "Lunch", text: "Lunch on Friday?" }),
      );
      const [delivery] = await ctx.sql`
        update webhook_deliveries set state = 'dead', attempts = 6, dead_at = now()
        where event_id = (select id from webhook_events where message_id = ${messageId}) returning id`;
      deliveryId = delivery!.id;
      await ctx.sql`insert into webhook_attempts (delivery_id, url, status) values (${deliveryId}, 'https://hooks.example.org/in', 500)`;
    });

    test("listAttempts", async () => {
      expect(await listAttempts(ctx.sql, other.accountId, deliveryId)).toHaveLength(0);
      expect((await listAttempts(ctx.sql, owner.accountId, deliveryId)).map((a) => a.status)).toEqual([500]);
    });

    test("redriveDelivery", async () => {
      const error = await redriveDelivery(ctx.sql, other.accountId, deliveryId).catch((e) => e);
      expect(error).toBeInstanceOf(CoreError);
      expect((error as CoreError).code).toBe("not_found");
      const [row] = await ctx.sql`select state, redrives from webhook_deliveries where id = ${deliveryId}`;
      expect(row).toEqual({ state: "dead", redrives: 0 });
      await redriveDelivery(ctx.sql, owner.accountId, deliveryId);
      const [after] = await ctx.sql`select state, redrives from webhook_deliveries where id = ${deliveryId}`;
      expect(after).toEqual({ state: "pending", redrives: 1 });
    });
  });
});
