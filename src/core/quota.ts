// The monthly send quota: a counter per account and calendar month (UTC), reserved atomically
// before delivery and given back when a delivery definitely did not happen.
import type { Config } from "../config.ts";
import type { Db } from "../db.ts";
import { monthlyQuotaFor } from "./accounts.ts";
import { errors } from "./errors.ts";

/** Reserves one send or throws 402; the conditional upsert makes concurrent sends safe. */
export async function reserveSend(db: Db, config: Config, accountId: string): Promise<void> {
  const [account] = await db`select plan, monthly_send_quota from accounts where id = ${accountId}`;
  const quota = monthlyQuotaFor(account as never, config);
  const reserved = await db`
    insert into send_usage (account_id, month, sent)
    select ${accountId}, date_trunc('month', now() at time zone 'utc')::date, 1 where ${quota}::int > 0
    on conflict (account_id, month) do update set sent = send_usage.sent + 1 where send_usage.sent < ${quota}::int
    returning sent`;
  if (reserved.length === 0) throw errors.quotaExhausted();
}

/** Gives a send back to the month it was reserved in (`reservedAt`, the message's creation). */
export async function releaseSend(db: Db, accountId: string, reservedAt: string | Date): Promise<void> {
  await db`
    update send_usage set sent = greatest(sent - 1, 0)
    where account_id = ${accountId} and month = date_trunc('month', ${reservedAt}::timestamptz at time zone 'utc')::date`;
}
