-- Sign-in throttling counts failures per (email, client address) and per client address, no
-- longer per email alone: anyone who knew an operator's email could keep them locked out from
-- anywhere. `client` is the throttle's key for the address (IPv4 as is, IPv6 as its /64,
-- 'unknown' when the server could not tell). Rows written before this migration get the empty
-- client, which no request has, so they stop counting; they age out of the 15-minute window.
alter table dashboard_login_failures add column client text not null default '';
alter table dashboard_login_failures alter column client drop default;

-- Nothing asks by email alone any more. The count reads one client's rows in the window, and a
-- successful sign-in deletes one (client, email) pair's: one index serves both.
drop index dashboard_login_failures_email;
create index dashboard_login_failures_client on dashboard_login_failures (client, email, failed_at);
