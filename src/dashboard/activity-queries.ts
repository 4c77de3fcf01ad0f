// The numbers behind the Activity page: per UTC day over the last 30 days, for the whole account
// or one mailbox, how inbound mail was screened, how sends ended, how webhook deliveries ended
// and how slow they were, and how much of this month's send quota is used.
import type { Config } from "../config.ts";
import { monthlyQuotaFor } from "../core/accounts/index.ts";
import type { Db } from "../db.ts";

export const ACTIVITY_DAYS = 30;

export type DayCount = { day: string; outcome: string; n: number };

/** The last 30 UTC days, oldest first, as YYYY-MM-DD. */
export function activityDays(now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: ACTIVITY_DAYS }, (_, i) => new Date(today - (ACTIVITY_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

// Both bounds in UTC days, so a row counts on the day its chart bar shows.
const since = (days: number) => `${days - 1} days`;

export async function inboundByOutcome(db: Db, accountId: string, mailboxId: string | null): Promise<DayCount[]> {
  return db<DayCount[]>`
    select to_char(day, 'YYYY-MM-DD') as day, outcome, n from (
      select (created_at at time zone 'utc')::date as day,
        case when processed_at is null then 'screening'
          when virus_risk = 'high' then 'virus'
          when spam_risk = 'high' then 'spam'
          when comprehension->>'status' = 'skipped_injection_risk' then 'injection'
          else 'clean' end as outcome,
        count(*)::int as n
      from messages
      where account_id = ${accountId} and direction = 'in' and (${mailboxId}::text is null or mailbox_id = ${mailboxId})
        and created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc' - ${since(ACTIVITY_DAYS)}::interval
      group by 1, 2) s`;
}

export async function sendsByOutcome(db: Db, accountId: string, mailboxId: string | null): Promise<DayCount[]> {
  return db<DayCount[]>`
    select day, outcome, count(*)::int as n from (
      select to_char(created_at at time zone 'utc', 'YYYY-MM-DD') as day,
        case when delivery_status = 'sent' and outcome_assumed then 'assumed sent'
          when delivery_status = 'sent' then 'sent'
          when delivery_status = 'unknown' then 'in doubt'
          when delivery_status = 'retry' then 'retrying'
          else 'sending' end as outcome
      from messages
      where account_id = ${accountId} and direction = 'out' and (${mailboxId}::text is null or mailbox_id = ${mailboxId})
        and created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc' - ${since(ACTIVITY_DAYS)}::interval
      union all
      select to_char(updated_at at time zone 'utc', 'YYYY-MM-DD'), 'rejected by a human'
      from drafts
      where account_id = ${accountId} and status = 'rejected' and (${mailboxId}::text is null or mailbox_id = ${mailboxId})
        and updated_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc' - ${since(ACTIVITY_DAYS)}::interval
    ) s group by 1, 2`;
}

// Webhook rows know their message only through the event: the account-wide view skips that join.

export async function webhooksByOutcome(db: Db, accountId: string, mailboxId: string | null): Promise<DayCount[]> {
  if (mailboxId === null) {
    return db<DayCount[]>`
      select to_char(day, 'YYYY-MM-DD') as day, outcome, n from (
        select (created_at at time zone 'utc')::date as day, state as outcome, count(*)::int as n
        from webhook_deliveries
        where account_id = ${accountId}
          and created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc' - ${since(ACTIVITY_DAYS)}::interval
        group by 1, 2) s`;
  }
  return db<DayCount[]>`
    select to_char(day, 'YYYY-MM-DD') as day, outcome, n from (
      select (d.created_at at time zone 'utc')::date as day, d.state as outcome, count(*)::int as n
      from webhook_deliveries d join webhook_events e on e.id = d.event_id join messages m on m.id = e.message_id
      where d.account_id = ${accountId} and m.mailbox_id = ${mailboxId}
        and d.created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc' - ${since(ACTIVITY_DAYS)}::interval
      group by 1, 2) s`;
}

export type DayLatency = { day: string; p95: number; attempts: number };

/** The 95th percentile of webhook attempt latency per day (attempts that got an answer or timed out). */
export async function webhookLatency(db: Db, accountId: string, mailboxId: string | null): Promise<DayLatency[]> {
  if (mailboxId === null) {
    return db<DayLatency[]>`
      select to_char(day, 'YYYY-MM-DD') as day, p95, attempts from (
        select (a.attempted_at at time zone 'utc')::date as day,
          round(percentile_cont(0.95) within group (order by a.latency_ms))::int as p95, count(*)::int as attempts
        from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
        where d.account_id = ${accountId} and a.latency_ms is not null
          and a.attempted_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc' - ${since(ACTIVITY_DAYS)}::interval
        group by 1) s`;
  }
  return db<DayLatency[]>`
    select to_char(day, 'YYYY-MM-DD') as day, p95, attempts from (
      select (a.attempted_at at time zone 'utc')::date as day,
        round(percentile_cont(0.95) within group (order by a.latency_ms))::int as p95, count(*)::int as attempts
      from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
        join webhook_events e on e.id = d.event_id join messages m on m.id = e.message_id
      where d.account_id = ${accountId} and m.mailbox_id = ${mailboxId} and a.latency_ms is not null
        and a.attempted_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc' - ${since(ACTIVITY_DAYS)}::interval
      group by 1) s`;
}

export type MailboxTotals = { mailbox_id: string; address: string; inbound: number; flagged: number; sent: number };

/** Totals per mailbox over the same 30 days, for the account-wide view. */
export async function totalsByMailbox(db: Db, accountId: string): Promise<MailboxTotals[]> {
  return db<MailboxTotals[]>`
    select b.id as mailbox_id, b.address,
      count(m.id) filter (where m.direction = 'in')::int as inbound,
      count(m.id) filter (where m.direction = 'in' and (m.virus_risk = 'high' or m.spam_risk = 'high' or m.comprehension->>'status' = 'skipped_injection_risk'))::int as flagged,
      count(m.id) filter (where m.direction = 'out' and m.delivery_status = 'sent')::int as sent
    from mailboxes b left join messages m on m.mailbox_id = b.id and m.account_id = ${accountId}
      and m.created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc' - ${since(ACTIVITY_DAYS)}::interval
    where b.account_id = ${accountId}
    group by b.id, b.address order by count(m.id) desc, b.address limit 200`;
}

export async function quotaThisMonth(db: Db, config: Config, accountId: string): Promise<{ used: number; quota: number; month: string }> {
  const [row] = await db`
    select a.plan, a.monthly_send_quota, coalesce(u.sent, 0)::int as used, to_char(now() at time zone 'utc', 'YYYY-MM') as month
    from accounts a left join send_usage u on u.account_id = a.id and u.month = date_trunc('month', now() at time zone 'utc')::date
    where a.id = ${accountId}`;
  return { used: row!.used, quota: monthlyQuotaFor(row as never, config), month: row!.month };
}
