// Email and password to a dashboard user. An unknown email still runs one full password
// derivation (against a hash made at start-up), so a wrong email and a wrong password cost the
// same time and get the same answer. A correct password whose stored hash is of an older kind
// (PBKDF2, or weaker argon2id parameters) is re-hashed with today's argon2id then.

import { hashPassword, verifyPassword } from "../core/accounts/index.ts";
import type { Db } from "../db.ts";
import { base64url, randomBytes } from "../secrets.ts";

export const MAX_EMAIL_LENGTH = 320;
export const MAX_PASSWORD_LENGTH = 1024;

export type DashboardUser = { id: string; accountId: string; email: string };

export function makeCredentialCheck(db: Db) {
  const decoy = hashPassword(base64url(randomBytes(18)));
  return async function checkCredentials(email: string, password: string): Promise<DashboardUser | null> {
    const [user] = await db`select id, account_id, email, password_hash from dashboard_users where email = ${email}`;
    const check = await verifyPassword(password, user ? user.password_hash : await decoy);
    if (!check.ok || !user) return null;
    if (check.needsRehash) {
      // Conditional on the old hash: a password changed meanwhile is not overwritten.
      await db`update dashboard_users set password_hash = ${await hashPassword(password)} where id = ${user.id} and password_hash = ${user.password_hash}`;
    }
    return { id: user.id, accountId: user.account_id, email: user.email };
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
