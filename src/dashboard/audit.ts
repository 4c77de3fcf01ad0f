// One JSON log line per dashboard action: who, which account, what, on which id, and how it
// ended. Never a secret, a password or a form body.
import type { Logger } from "../log.ts";
import type { Session } from "./session.ts";

export type ActionOutcome = "ok" | "rejected" | "not_found" | "failed";
export type AuditFields = Record<string, string | number | boolean | null>;

export function outcomeOf(status: number): ActionOutcome {
  if (status === 404) return "not_found";
  if (status >= 500) return "failed";
  return status >= 400 ? "rejected" : "ok";
}

export function logAction(
  log: Logger,
  session: Pick<Session, "userId" | "accountId"> | null,
  action: string,
  outcome: ActionOutcome,
  fields: AuditFields = {},
): void {
  log.info("dashboard.action", {
    action,
    outcome,
    user_id: session?.userId ?? null,
    account_id: session?.accountId ?? null,
    ...fields,
  });
}
