// Tenancy in core: every core function that acts on a tenant's rows takes the account in one shape
// (a Tenant, which a Principal and a dashboard session are, or an input object carrying accountId)
// and scopes its SQL by it, so another account's id is not found there and its row stays untouched.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { listKeys, revokeKey } from "../../src/core/accounts/keys.ts";
import { listPeople, setReviewer } from "../../src/core/accounts/people.ts";
import { createUser } from "../../src/core/accounts/users.ts";
import { CoreError } from "../../src/core/errors.ts";
import { findMailbox, updateMailboxSettings } from "../../src/core/mailboxes.ts";
import { listPendingDrafts } from "../../src/core/outbound/drafts.ts";
import { listScheduled } from "../../src/core/outbound/scheduled-drafts.ts";
import { addSendListEntry, listSendListEntries, removeSendListEntry } from "../../src/core/outbound/sendlists.ts";
import { addSuppression, listSuppressions, removeSuppression } from "../../src/core/outbound/suppressions.ts";
import { attachExtractionSchema, createExtractionSchema, listExtractionSchemas } from "../../src/core/schemas.ts";
import {
  disableWebhook,
  listAttempts,
  listDeliveries,
  redriveDelivery,
  setWebhookEventTypes,
  showWebhook,
} from "../../src/core/webhooks/endpoint.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mime, receive } from "../support/mail-fixtures.ts";
import { refusal } from "../support/refusal.ts";

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
    expect(await revokeKey(ctx.sql, other, owner.keyId)).toBeNull();
    const [row] = await ctx.sql`select revoked_at from api_keys where id = ${owner.keyId}`;
    expect(row!.revoked_at).toBeNull();
    expect((await ctx.request("GET", "/api/v1/mailboxes", { key: owner.key })).status).toBe(200);
    // The owner can: the first call revokes, the second finds it already revoked.
    const spare = await makeAccount(ctx);
    expect(await revokeKey(ctx.sql, spare, spare.keyId)).toBe(true);
    expect(await revokeKey(ctx.sql, spare, spare.keyId)).toBe(false);
    expect(await revokeKey(ctx.sql, spare, "key_missing")).toBeNull();
  });

  test("removeSendListEntry", async () => {
    const entry = await addSendListEntry(ctx.sql, { accountId: owner.accountId, kind: "block", pattern: "tenancy@example.org" });
    expect(await removeSendListEntry(ctx.sql, other, entry.id)).toBe(false);
    expect((await ctx.sql`select 1 from send_list_entries where id = ${entry.id}`).length).toBe(1);
    expect(await removeSendListEntry(ctx.sql, owner, entry.id)).toBe(true);
    expect((await ctx.sql`select 1 from send_list_entries where id = ${entry.id}`).length).toBe(0);
  });

  test("removeSuppression", async () => {
    const suppression = await addSuppression(ctx.sql, { accountId: owner.accountId, address: "tenancy@example.org", reason: "manual" });
    expect(await removeSuppression(ctx.sql, other, suppression.id)).toBe(false);
    expect((await ctx.sql`select 1 from suppressions where id = ${suppression.id}`).length).toBe(1);
    expect(await removeSuppression(ctx.sql, owner, suppression.id)).toBe(true);
    expect((await ctx.sql`select 1 from suppressions where id = ${suppression.id}`).length).toBe(0);
  });

  test("updateMailboxSettings", async () => {
    const mailbox = await makeMailbox(ctx, owner, "tenancy");
    const error = await updateMailboxSettings(ctx.sql, other, mailbox.id, { requireApproval: true, deliverSpam: true }).catch((e) => e);
    expect(error).toBeInstanceOf(CoreError);
    expect((error as CoreError).code).toBe("not_found");
    const [row] = await ctx.sql`select require_approval, deliver_spam from mailboxes where id = ${mailbox.id}`;
    expect(row).toEqual({ require_approval: false, deliver_spam: false });
    expect((await updateMailboxSettings(ctx.sql, owner, mailbox.id, { requireApproval: true })).require_approval).toBe(true);
  });

  test("findMailbox", async () => {
    const mailbox = await makeMailbox(ctx, owner, "tenancy-find");
    expect(await findMailbox(ctx.sql, other, mailbox.id)).toBeNull();
    expect((await findMailbox(ctx.sql, owner, mailbox.id))?.id).toBe(mailbox.id);
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
      expect(await listAttempts(ctx.sql, other, deliveryId)).toHaveLength(0);
      expect((await listAttempts(ctx.sql, owner, deliveryId)).map((a) => a.status)).toEqual([500]);
    });

    test("redriveDelivery", async () => {
      const error = await redriveDelivery(ctx.sql, other, deliveryId).catch((e) => e);
      expect(error).toBeInstanceOf(CoreError);
      expect((error as CoreError).code).toBe("not_found");
      const [row] = await ctx.sql`select state, redrives from webhook_deliveries where id = ${deliveryId}`;
      expect(row).toEqual({ state: "dead", redrives: 0 });
      await redriveDelivery(ctx.sql, owner, deliveryId);
      const [after] = await ctx.sql`select state, redrives from webhook_deliveries where id = ${deliveryId}`;
      expect(after).toEqual({ state: "pending", redrives: 1 });
    });
  });
});

/** Exported functions of src/core whose parameters include a bare `accountId: string`. */
function bareAccountParameters(): string[] {
  const root = join(import.meta.dir, "..", "..");
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = `${dir}/${name}`;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (name.endsWith(".ts")) {
        const text = readFileSync(join(root, path), "utf8");
        for (const m of text.matchAll(/export (?:async )?function (\w+)(?:<[^>]*>)?\(([^)]*)\)/g)) {
          // Object types (an input carrying accountId) are left out: only a parameter of its own counts.
          let params = m[2]!;
          while (/\{[^{}]*\}/.test(params)) params = params.replace(/\{[^{}]*\}/g, "_");
          if (/(^|,)\s*accountId: string/.test(params)) found.push(`${path}: ${m[1]}`);
        }
      }
    }
  };
  walk("src/core");
  return found.sort();
}

describe("one tenancy shape", () => {
  test("no exported core function takes a bare accountId: it takes a Tenant (or an input carrying accountId)", () => {
    expect(bareAccountParameters()).toEqual([]);
  });
});

describe("another account's lists are empty, and its settings are not changed", () => {
  test("listKeys, listPeople and setReviewer", async () => {
    const user = await createUser(ctx.sql, {
      accountId: owner.accountId,
      email: `tenancy-${owner.keyId}@example.org`,
      password: "correct horse battery",
    });
    expect((await listKeys(ctx.sql, other)).map((k) => k.id)).not.toContain(owner.keyId);
    expect((await listKeys(ctx.sql, owner)).map((k) => k.id)).toContain(owner.keyId);
    expect((await listPeople(ctx.sql, other)).map((p) => p.id)).not.toContain(user.id);
    const [before] = await ctx.sql`select reviews_drafts from dashboard_users where id = ${user.id}`;
    expect(await refusal(setReviewer(ctx.sql, other, user.id, !before!.reviews_drafts))).toMatchObject({ status: 404 });
    const [after] = await ctx.sql`select reviews_drafts from dashboard_users where id = ${user.id}`;
    expect(after!.reviews_drafts).toBe(before!.reviews_drafts);
  });

  test("listSuppressions and listSendListEntries", async () => {
    const suppression = await addSuppression(ctx.sql, { accountId: owner.accountId, address: "listed@example.org", reason: "manual" });
    const entry = await addSendListEntry(ctx.sql, { accountId: owner.accountId, kind: "block", pattern: "listed@example.org" });
    expect((await listSuppressions(ctx.sql, other)).map((x) => x.id)).not.toContain(suppression.id);
    expect((await listSuppressions(ctx.sql, owner)).map((x) => x.id)).toContain(suppression.id);
    expect((await listSendListEntries(ctx.sql, other)).map((x) => x.id)).not.toContain(entry.id);
    expect((await listSendListEntries(ctx.sql, owner)).map((x) => x.id)).toContain(entry.id);
  });

  test("showWebhook, setWebhookEventTypes, disableWebhook and listDeliveries", async () => {
    const account = await makeAccount(ctx);
    const stranger = await makeAccount(ctx);
    await ctx.sql`insert into webhook_endpoints (account_id, url, secret) values (${account.accountId}, 'https://hooks.example.org/t', 'whsec_tenancy_abcdef0123456')`;
    expect(await showWebhook(ctx.sql, stranger)).toBeNull();
    expect(await setWebhookEventTypes(ctx.sql, stranger, ["message.sent"])).toBe(false);
    expect(await disableWebhook(ctx.sql, stranger)).toBe(false);
    expect(await showWebhook(ctx.sql, account)).toMatchObject({ enabled: true, event_types: ["message.received"] });
    expect(await listDeliveries(ctx.sql, stranger)).toEqual([]);
  });

  test("listExtractionSchemas and attachExtractionSchema", async () => {
    const schema = await createExtractionSchema(ctx.sql, { accountId: owner.accountId, name: "tenancy", schema: { type: "object" } });
    const theirs = await makeMailbox(ctx, other, "tenancy-schema");
    expect((await listExtractionSchemas(ctx.sql, other)).map((x) => x.id)).not.toContain(schema.id);
    expect(await refusal(attachExtractionSchema(ctx.sql, other, theirs.id, schema.id))).toEqual({
      status: 404,
      body: { error: "not found" },
      headers: {},
    });
  });

  test("listPendingDrafts and listScheduled", async () => {
    expect(await listPendingDrafts(ctx.sql, other)).toEqual([]);
    expect(await listScheduled(ctx.sql, other)).toEqual([]);
  });
});
