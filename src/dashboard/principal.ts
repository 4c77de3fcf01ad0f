// The principal a signed-in human acts as when the dashboard calls a core function written for
// API keys: account-wide, read-only, with the account's plan read fresh from the database.
import type { Principal } from "../core/principal.ts";
import type { Db } from "../db.ts";
import type { Session } from "./session.ts";

export async function dashboardPrincipal(db: Db, session: Session): Promise<Principal> {
  const [account] = await db`select plan from accounts where id = ${session.accountId}`;
  return {
    keyId: `dashboard:${session.userId}`,
    accountId: session.accountId,
    plan: account?.plan === "paid" ? "paid" : "free",
    scope: "api",
    mailboxId: null,
    canRead: true,
    canSend: false,
  };
}
