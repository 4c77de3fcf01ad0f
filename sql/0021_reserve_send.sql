-- One send reserved from an account's month, or an error: SQLSTATE MQ402 'send quota exhausted'.
-- The reservation locks the account's send_usage row until COMMIT, and every concurrent send of
-- that account waits on it. As a function that raises, it can be the last step of the one
-- statement that records a send (src/core/outbound-record.ts): the lock is then held only while
-- that statement ends and commits, never across a round trip to the API process, and a refused
-- reservation rolls the whole statement back. The quota rule is monthlyQuotaFor's (accounts.ts):
-- the account's own figure, else its plan's.
create function reserve_send(p_account_id text, p_free_quota integer, p_paid_quota integer)
returns void language plpgsql as $$
declare
  quota integer;
begin
  select coalesce(monthly_send_quota, case when plan = 'paid' then p_paid_quota else p_free_quota end)
    into quota from accounts where id = p_account_id;
  insert into send_usage as usage (account_id, month, sent)
  select p_account_id, date_trunc('month', now() at time zone 'utc')::date, 1 where coalesce(quota, 0) > 0
  on conflict (account_id, month) do update set sent = usage.sent + 1 where usage.sent < quota;
  if not found then
    raise exception 'send quota exhausted' using errcode = 'MQ402';
  end if;
end $$;
