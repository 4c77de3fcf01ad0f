// API keys: created and revoked by humans (CLI, dashboard), looked up by hash on every request.

import type { Db } from "../../db.ts";
import { base64url, randomBytes, sha256 } from "../../secrets.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Principal, Scope, Tenant } from "../principal.ts";
import { invalidateKeyCaches } from "./key-cache-local.ts";

export const KEY_PREFIX = "svc_";

export type NewKey = {
  accountId: string;
  scope: Scope;
  mailboxId?: string | null;
  canRead?: boolean;
  canSend?: boolean;
  name?: string | null;
};

export type KeyRecord = {
  id: string;
  account_id: string;
  name: string | null;
  scope: Scope;
  mailbox_id: string | null;
  can_read: boolean;
  can_send: boolean;
  key_hint: string;
  created_at: string;
  revoked_at: string | null;
};

/** Creates a key and returns its secret: the only time the secret exists outside the caller. */
export async function createKey(db: Db, input: NewKey): Promise<{ key: KeyRecord; secret: string }> {
  const secret = KEY_PREFIX + base64url(randomBytes(32));
  const [account] = await db`select 1 from accounts where id = ${input.accountId}`;
  if (!account) throw errors.notFound("account");
  if (input.mailboxId) {
    const [mailbox] = await db`select 1 from mailboxes where id = ${input.mailboxId} and account_id = ${input.accountId}`;
    if (!mailbox) throw errors.notFound("mailbox");
  }
  const [key] = await db<KeyRecord[]>`
    insert into api_keys (id, account_id, name, scope, mailbox_id, can_read, can_send, key_hash, key_hint)
    values (${newId("key")}, ${input.accountId}, ${input.name ?? null}, ${input.scope}, ${input.mailboxId ?? null},
            ${input.canRead ?? true}, ${input.canSend ?? true}, ${await sha256(secret)}, ${secret.slice(0, 10)})
    returning id, account_id, name, scope, mailbox_id, can_read, can_send, key_hint, created_at, revoked_at`;
  return { key: key!, secret };
}

/**
 * Revokes one of the account's keys: true when this call revoked it, false when it already was,
 * null when the account has no such key (another account's key included).
 */
export async function revokeKey(db: Db, tenant: Tenant, keyId: string): Promise<boolean | null> {
  const { accountId } = tenant;
  // The subquery reads the row before the update, so one statement tells "revoked now" from "already".
  const [row] = await db<{ revoked: boolean }[]>`
    update api_keys k set revoked_at = coalesce(k.revoked_at, now())
    from (select id, revoked_at from api_keys where id = ${keyId} and account_id = ${accountId} for update) before
    where k.id = before.id
    returning before.revoked_at is null as revoked`;
  // This process forgets its cached keys now; the others (and this one again) on the NOTIFY.
  invalidateKeyCaches();
  return row ? row.revoked : null;
}

export async function listKeys(db: Db, tenant: Tenant): Promise<KeyRecord[]> {
  const { accountId } = tenant;
  return db<KeyRecord[]>`
    select id, account_id, name, scope, mailbox_id, can_read, can_send, key_hint, created_at, revoked_at
    from api_keys where account_id = ${accountId} order by created_at, id`;
}

/**
 * Resolves a presented secret to its grants. The lookup is by SHA-256 of the secret through a
 * unique index, so no secret is ever compared byte by byte in our code; a revoked key is unknown.
 */
export async function principalForSecret(db: Db, secret: string): Promise<Principal | null> {
  const [row] = await db`
    select k.id, k.account_id, a.plan, k.scope, k.mailbox_id, k.can_read, k.can_send
    from api_keys k join accounts a on a.id = k.account_id
    where k.key_hash = ${await sha256(secret)} and k.revoked_at is null`;
  if (!row) return null;
  return {
    keyId: row.id,
    accountId: row.account_id,
    plan: row.plan,
    scope: row.scope,
    mailboxId: row.mailbox_id,
    canRead: row.can_read,
    canSend: row.can_send,
  };
}
