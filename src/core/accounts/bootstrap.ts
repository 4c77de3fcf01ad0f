// The first start of an empty database creates a default account, an API key and a dashboard
// login, and hands their secrets back once to be printed.
import type { Sql } from "../../db.ts";
import { base64url, randomBytes } from "../../secrets.ts";
import { createAccount } from "./accounts.ts";
import { createKey } from "./keys.ts";
import { createUser } from "./users.ts";

export type FirstStartSecrets = {
  accountId: string;
  apiKey: string;
  bootstrapKey: string;
  dashboardEmail: string;
  dashboardPassword: string;
};

export async function createDefaultAccountOnFirstStart(sql: Sql, sharedDomain: string): Promise<FirstStartSecrets | null> {
  return sql.begin(async (tx) => {
    // Several processes may start at once against one database: only one creates the account.
    await tx`select pg_advisory_xact_lock(7351003)`;
    const [any] = await tx`select 1 from accounts limit 1`;
    if (any) return null;
    const account = await createAccount(tx, { name: "Default account", plan: "paid" });
    const api = await createKey(tx, { accountId: account.id, scope: "api", name: "default api key" });
    const bootstrap = await createKey(tx, { accountId: account.id, scope: "bootstrap", name: "default bootstrap key" });
    const dashboardEmail = `admin@${sharedDomain}`;
    const dashboardPassword = base64url(randomBytes(18));
    await createUser(tx, { accountId: account.id, email: dashboardEmail, password: dashboardPassword });
    return { accountId: account.id, apiKey: api.secret, bootstrapKey: bootstrap.secret, dashboardEmail, dashboardPassword };
  });
}
