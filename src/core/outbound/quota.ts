// The monthly send quota: a counter per account and calendar month (UTC), reserved atomically
// before delivery (reserve_send, sql/0021, called by outbound-record.ts) and given back when a
// delivery definitely did not happen.
import type { Db } from "../../db.ts";
import type { Tenant } from "../principal.ts";

/** Gives a send back to the month it was reserved in (`reservedAt`, the message's creation). */
export async function releaseSend(db: Db, tenant: Tenant, reservedAt: string | Date): Promise<void> {
  const { accountId } = tenant;
  await db`
    update send_usage set sent = greatest(sent - 1, 0)
    where account_id = ${accountId} and month = date_trunc('month', ${reservedAt}::timestamptz at time zone 'utc')::date`;
}
