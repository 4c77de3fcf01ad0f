// Suppressed recipients: an account never sends to them again (422 on send).
import type { Db } from "../../db.ts";
import { newId } from "../ids.ts";
import type { Tenant } from "../principal.ts";

export type SuppressionReason = "bounce" | "complaint" | "unsubscribe" | "manual";
export type Suppression = {
  id: string;
  account_id: string;
  address: string;
  reason: SuppressionReason;
  source_message_id: string | null;
  created_at: string;
};

export function normalizeAddress(address: string): string {
  return address.trim().toLowerCase();
}

export async function addSuppression(
  db: Db,
  input: { accountId: string; address: string; reason: SuppressionReason; sourceMessageId?: string | null },
): Promise<Suppression> {
  const [row] = await db<Suppression[]>`
    insert into suppressions (id, account_id, address, reason, source_message_id)
    values (${newId("sup")}, ${input.accountId}, ${normalizeAddress(input.address)}, ${input.reason}, ${input.sourceMessageId ?? null})
    on conflict (account_id, address) do update set address = excluded.address
    returning *`;
  return row!;
}

export async function listSuppressions(db: Db, tenant: Tenant): Promise<Suppression[]> {
  const { accountId } = tenant;
  return db<Suppression[]>`select * from suppressions where account_id = ${accountId} order by created_at, id`;
}

/** False when the account has no such suppression (another account's included). */
export async function removeSuppression(db: Db, tenant: Tenant, id: string): Promise<boolean> {
  const { accountId } = tenant;
  return (await db`delete from suppressions where id = ${id} and account_id = ${accountId} returning id`).length > 0;
}
