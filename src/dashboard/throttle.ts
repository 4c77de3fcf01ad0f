// Throttles password guessing. Each sign-in attempt is a row in Postgres, written before the
// password is checked and deleted only when the sign-in succeeds, so parallel guesses count
// against each other and every API process behind a load balancer sees the same count. Counting
// is per submitted email, existing or not, so a throttled answer reveals nothing about which
// accounts exist. (Not per IP: the HTTP layer hands the app a Request without the peer address,
// and X-Forwarded-For cannot be trusted without a known proxy.)
import type { Db } from "../db.ts";

export const FAILURE_LIMIT = 5;
export const WINDOW_SECONDS = 15 * 60;

/** Records an attempt; throttled (and not recorded) when the email already has its fill of failures. */
export async function startAttempt(db: Db, email: string): Promise<{ throttled: boolean }> {
  // Old rows are of no use to the window; trimming here keeps the table small without a job.
  await db`delete from dashboard_login_failures where failed_at < now() - make_interval(secs => ${WINDOW_SECONDS})`;
  const [attempt] = await db`insert into dashboard_login_failures (email) values (${email}) returning id`;
  const [row] = await db`
    select count(*)::int as attempts from dashboard_login_failures
    where email = ${email} and failed_at > now() - make_interval(secs => ${WINDOW_SECONDS})`;
  if ((row?.attempts ?? 0) <= FAILURE_LIMIT) return { throttled: false };
  await db`delete from dashboard_login_failures where id = ${attempt!.id}`;
  return { throttled: true };
}

/** A successful sign-in forgives the email's failures, this attempt's row included. */
export async function attemptSucceeded(db: Db, email: string): Promise<void> {
  await db`delete from dashboard_login_failures where email = ${email}`;
}
