// The account's own record of dashboard actions, written beside the JSON log line (guard.ts) and
// shown on the People page. It holds what the log line holds: ids, facts and the outcome.
import type { Db } from "../db.ts";
import type { ActionOutcome, AuditFields } from "./audit.ts";
import type { Session } from "./session.ts";

/** `client`: where the request came from (the address the sign-in throttle uses), when known. */
export async function recordAction(
  db: Db,
  session: Pick<Session, "accountId" | "userId" | "email">,
  action: string,
  outcome: ActionOutcome,
  fields: AuditFields,
  client: string | null = null,
): Promise<void> {
  const { target_id: target = null, ...details } = fields;
  await db`
    insert into dashboard_audit (account_id, user_id, user_email, action, outcome, target_id, details, client)
    values (${session.accountId}, ${session.userId}, ${session.email}, ${action}, ${outcome}, ${target === null ? null : String(target)},
      ${db.json(details as never)}, ${client})`;
}

export type AuditRow = {
  id: string;
  user_email: string | null;
  action: string;
  outcome: string;
  target_id: string | null;
  details: AuditFields;
  client: string | null;
  created_at: string;
};

/** The newest entries of the account, older than entry `before` when given (keyset paging). */
export async function auditTrail(
  db: Db,
  accountId: string,
  before: number | null,
  limit: number,
): Promise<{ rows: AuditRow[]; older: string | null }> {
  const rows = await db<AuditRow[]>`
    select id::text, user_email, action, outcome, target_id, details, client, created_at from dashboard_audit
    where account_id = ${accountId} and (${before}::bigint is null or id < ${before})
    order by dashboard_audit.id desc limit ${limit + 1}`;
  const page = rows.slice(0, limit);
  return { rows: page, older: rows.length > limit ? page[page.length - 1]!.id : null };
}
