// Email and password to a dashboard user. An unknown email still runs one full password
// derivation (against a hash made at start-up), so a wrong email and a wrong password cost the
// same time and get the same answer.
import type { Db } from "../db.ts";
import { base64url, hashPassword, randomBytes, verifyPassword } from "../core/secrets.ts";

export const MAX_EMAIL_LENGTH = 320;
export const MAX_PASSWORD_LENGTH = 1024;

export type DashboardUser = { id: string; accountId: string; email: string };

export function makeCredentialCheck(db: Db) {
  const decoy = hashPassword(base64url(randomBytes(18)));
  return async function checkCredentials(email: string, password: string): Promise<DashboardUser | null> {
    const [user] = await db`select id, account_id, email, password_hash from dashboard_users where email = ${email}`;
    const ok = await verifyPassword(password, user ? user.password_hash : await decoy);
    return ok && user ? { id: user.id, accountId: user.account_id, email: user.email } : null;
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
