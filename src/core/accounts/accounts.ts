// Accounts: the tenant every key, mailbox and domain belongs to. Managed by operators and humans.

import type { Config } from "../../config.ts";
import type { Db } from "../../db.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import { invalidateKeyCaches } from "./key-cache-local.ts";

export type Plan = "free" | "paid";

export type Account = {
  id: string;
  name: string;
  plan: Plan;
  monthly_send_quota: number | null;
  created_at: string;
};

function validateName(name: string | undefined): void {
  if (name !== undefined && (name.trim().length === 0 || name.length > 200))
    throw errors.validation("account name must be 1 to 200 characters");
}

export async function createAccount(db: Db, input: { name: string; plan?: Plan; monthlySendQuota?: number | null }): Promise<Account> {
  validateName(input.name);
  const [account] = await db<Account[]>`
    insert into accounts (id, name, plan, monthly_send_quota)
    values (${newId("acc")}, ${input.name}, ${input.plan ?? "free"}, ${input.monthlySendQuota ?? null})
    returning id, name, plan, monthly_send_quota, created_at`;
  return account!;
}

export async function updateAccount(
  db: Db,
  id: string,
  changes: { name?: string; plan?: Plan; monthlySendQuota?: number | null },
): Promise<Account> {
  validateName(changes.name);
  const [account] = await db<Account[]>`
    update accounts set
      name = coalesce(${changes.name ?? null}, name),
      plan = coalesce(${changes.plan ?? null}, plan),
      monthly_send_quota = case when ${changes.monthlySendQuota !== undefined} then ${changes.monthlySendQuota ?? null}::integer else monthly_send_quota end
    where id = ${id}
    returning id, name, plan, monthly_send_quota, created_at`;
  // The cached keys of this process carry the plan: forget them now (others on the NOTIFY).
  invalidateKeyCaches();
  if (!account) throw errors.notFound("account");
  return account;
}

/** The quota in force: the account's override, else its plan's default from configuration. */
export function monthlyQuotaFor(account: Pick<Account, "plan" | "monthly_send_quota">, config: Config): number {
  if (account.monthly_send_quota !== null) return account.monthly_send_quota;
  return account.plan === "paid" ? config.paidPlanMonthlyQuota : config.freePlanMonthlyQuota;
}
