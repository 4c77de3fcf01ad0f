-- The clean-up deletes that run on every sign-in scan by age: index the columns they filter on,
-- so a table full of expired rows (a flood of failed sign-ins, years of sessions) stays cheap.
create index dashboard_sessions_created on dashboard_sessions (created_at);
create index dashboard_login_failures_failed on dashboard_login_failures (failed_at);
