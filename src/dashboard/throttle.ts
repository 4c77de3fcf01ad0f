// Throttles password guessing. Each sign-in attempt is a row in Postgres, written before the
// password is checked and deleted only when the sign-in succeeds, so parallel guesses count
// against each other and every API process behind a load balancer sees the same count.
// Two limits, both counted whether or not the email exists, so a throttled answer reveals
// nothing about which accounts do:
// - per (email, client address): guessing one user's password from one place. Keyed by the
//   pair, not the email alone, so someone who knows an operator's email cannot lock the operator
//   out from elsewhere.
// - per client address across every email: password spraying (one guess at many users).
// The client address is the TCP peer, or what a trusted proxy says (TRUSTED_PROXIES; see
// src/request/client-address.ts). IPv6 clients count per /64, the block one subscriber
// is usually given, so rotating addresses inside it buys nothing.

import type { Db } from "../db.ts";
import { networkOf, parseAddress } from "../ip-address.ts";

export const PAIR_FAILURE_LIMIT = 5;
export const CLIENT_FAILURE_LIMIT = 20;
export const WINDOW_SECONDS = 15 * 60;

/** Which limit refused an attempt. */
export type ThrottleLimit = "pair" | "client";

/** The throttle's key for a client address: IPv4 as it is, IPv6 as its /64, "unknown" without one. */
export function throttleKey(address: string | null): string {
  const parsed = address === null ? null : parseAddress(address);
  if (!parsed) return "unknown";
  return parsed.kind() === "ipv4" ? parsed.toString() : `${networkOf(parsed, 64).toString()}/64`;
}

/** Records an attempt; throttled (and not recorded) when the pair or the client has its fill of failures. */
export async function startAttempt(
  db: Db,
  email: string,
  client: string,
): Promise<{ throttled: ThrottleLimit | null; retryAfterSeconds: number }> {
  // Old rows are of no use to the window; trimming here keeps the table small without a job.
  await db`delete from dashboard_login_failures where failed_at < now() - make_interval(secs => ${WINDOW_SECONDS})`;
  const [attempt] = await db`insert into dashboard_login_failures (email, client) values (${email}, ${client}) returning id`;
  const [row] = await db`
    select count(*) filter (where email = ${email})::int as pair, count(*)::int as client
    from dashboard_login_failures
    where client = ${client} and failed_at > now() - make_interval(secs => ${WINDOW_SECONDS})`;
  const throttled: ThrottleLimit | null =
    (row?.pair ?? 0) > PAIR_FAILURE_LIMIT ? "pair" : (row?.client ?? 0) > CLIENT_FAILURE_LIMIT ? "client" : null;
  if (!throttled) return { throttled, retryAfterSeconds: 0 };
  await db`delete from dashboard_login_failures where id = ${attempt!.id}`;
  // The limiting set is at its limit now: the next attempt passes once its oldest failure leaves the window.
  const [oldest] = await db`
    select greatest(1, ceil(extract(epoch from min(failed_at) + make_interval(secs => ${WINDOW_SECONDS}) - now())))::int as seconds
    from dashboard_login_failures
    where client = ${client} and (${throttled === "client"} or email = ${email})
      and failed_at > now() - make_interval(secs => ${WINDOW_SECONDS})`;
  return { throttled, retryAfterSeconds: oldest?.seconds ?? WINDOW_SECONDS };
}

/** A successful sign-in forgives the pair's failures, this attempt's row included. */
export async function attemptSucceeded(db: Db, email: string, client: string): Promise<void> {
  await db`delete from dashboard_login_failures where email = ${email} and client = ${client}`;
}
