-- Send later: a draft scheduled for a time (POST /api/v1/drafts/{id}/schedule). The job that sends
-- it is Graphile Worker's (run_at, job key schedule:<draft id>, so rescheduling replaces it and
-- it runs once across worker copies); these columns say what the job must find when it runs.
alter table drafts add column scheduled_at timestamptz;
-- the IANA zone the caller gave (informational once scheduled_at is computed)
alter table drafts add column schedule_time_zone text;
-- A human approved a scheduled draft before its time: it waits in `draft`, its text frozen (edits
-- are 409), and goes out at scheduled_at without asking again.
alter table drafts add column approved_at timestamptz;
create index drafts_scheduled on drafts (account_id, scheduled_at)
  where scheduled_at is not null and deleted_at is null and status in ('draft', 'pending_approval');
