// Dashboard sessions. The cookie holds a random token; the database holds only its SHA-256, so a
// leaked table cannot be replayed. A session ends after 12 hours idle or 7 days in all, or at
// sign-out. The CSRF token is derived from the session token: bound to it, never stored.
import type { Db } from "../db.ts";
import { base64url, randomBytes, sha256 } from "../secrets.ts";

export const IDLE_SECONDS = 12 * 3600;
export const ABSOLUTE_SECONDS = 7 * 24 * 3600;

/** `pendingDrafts`: how many drafts wait for approval, so every page can link to the queue. */
export type Session = { userId: string; accountId: string; email: string; csrf: string; pendingDrafts: number };

async function csrfTokenFor(sessionToken: string): Promise<string> {
  return base64url(await sha256(`dashboard-csrf\0${sessionToken}`));
}

export async function createSession(db: Db, user: { id: string; accountId: string }): Promise<string> {
  const token = base64url(randomBytes(32));
  await db`delete from dashboard_sessions where created_at < now() - make_interval(secs => ${ABSOLUTE_SECONDS})
           or last_seen_at < now() - make_interval(secs => ${IDLE_SECONDS})`;
  await db`insert into dashboard_sessions (token_hash, user_id, account_id) values (${await sha256(token)}, ${user.id}, ${user.accountId})`;
  return token;
}

/** The live session for a cookie token, with its idle clock restarted; null when unknown or expired. */
export async function findSession(db: Db, token: string): Promise<Session | null> {
  const [row] = await db`
    update dashboard_sessions s set last_seen_at = now()
    from dashboard_users u
    where s.token_hash = ${await sha256(token)} and u.id = s.user_id
      and s.last_seen_at > now() - make_interval(secs => ${IDLE_SECONDS})
      and s.created_at > now() - make_interval(secs => ${ABSOLUTE_SECONDS})
    returning s.user_id, s.account_id, u.email,
      (select count(*)::int from drafts d where d.account_id = s.account_id and d.status = 'pending_approval' and d.deleted_at is null) as pending`;
  if (!row) return null;
  return { userId: row.user_id, accountId: row.account_id, email: row.email, csrf: await csrfTokenFor(token), pendingDrafts: row.pending };
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db`delete from dashboard_sessions where token_hash = ${await sha256(token)}`;
}
