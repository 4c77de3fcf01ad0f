// The people of an account's dashboard: listing, removing, and a user changing their own
// password. Adding one is createUser (users.ts), with the same password rule as here.
import type { Db, Sql } from "../../db.ts";
import { errors } from "../errors.ts";
import type { Tenant } from "../principal.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";

/** createUser's rule (users.ts): a password has at least 12 characters. */
export const MIN_PASSWORD_LENGTH = 12;

/** `reviews_drafts`: emailed when a draft of the account waits for approval. */
export type PersonRow = { id: string; email: string; created_at: string; sessions: number; reviews_drafts: boolean };

export async function listPeople(db: Db, tenant: Tenant): Promise<PersonRow[]> {
  const { accountId } = tenant;
  return db<PersonRow[]>`
    select u.id, u.email, u.created_at, u.reviews_drafts,
      (select count(*)::int from dashboard_sessions s where s.user_id = u.id) as sessions
    from dashboard_users u where u.account_id = ${accountId} order by u.created_at, u.id limit 500`;
}

/** Whether a person of the account is emailed when a draft waits for approval; another account's is not found. */
export async function setReviewer(db: Db, tenant: Tenant, userId: string, reviews: boolean): Promise<void> {
  const { accountId } = tenant;
  const rows =
    await db`update dashboard_users set reviews_drafts = ${reviews} where id = ${userId} and account_id = ${accountId} returning id`;
  if (rows.length === 0) throw errors.routeNotFound();
}

/**
 * Removes a user of the account (their sessions end with them). A user cannot remove themself,
 * so an account always keeps the person who is acting on it.
 */
export async function removePerson(db: Db, tenant: Tenant, actingUserId: string, userId: string): Promise<void> {
  const { accountId } = tenant;
  if (userId === actingUserId) throw errors.validation("you cannot remove yourself");
  const removed = await db`delete from dashboard_users where id = ${userId} and account_id = ${accountId} returning id`;
  if (removed.length === 0) throw errors.routeNotFound();
}

/**
 * Changes a user's own password after checking the current one. Every other session of the user
 * ends, so a password changed because it leaked also signs out whoever used it.
 */
export async function changeOwnPassword(
  db: Sql,
  input: { userId: string; current: string; next: string; keepSessionHash: Uint8Array | null },
): Promise<"changed" | "wrong_current"> {
  if (input.next.length < MIN_PASSWORD_LENGTH) throw errors.validation(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const [user] = await db`select password_hash from dashboard_users where id = ${input.userId}`;
  if (!user) throw errors.routeNotFound();
  if (!(await verifyPassword(input.current, user.password_hash)).ok) return "wrong_current";
  const hash = await hashPassword(input.next);
  await db.begin(async (tx) => {
    await tx`update dashboard_users set password_hash = ${hash} where id = ${input.userId}`;
    await tx`delete from dashboard_sessions where user_id = ${input.userId} and (${input.keepSessionHash}::bytea is null or token_hash <> ${input.keepSessionHash})`;
  });
  return "changed";
}
