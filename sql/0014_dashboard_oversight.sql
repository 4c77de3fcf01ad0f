-- The dashboard's oversight pages (issue 15).

-- Activity charts read an account's messages of the last 30 days; without this the query scans
-- every mailbox's index once per mailbox of the account.
create index messages_account_recent on messages (account_id, created_at desc);

-- A message page lists its thread; without this a thread is found by scanning the mailbox.
-- 0012_reading.sql already made an index of this name whose columns start with these: keep that one.
create index if not exists messages_mailbox_thread on messages (mailbox_id, thread_id, created_at);

-- The audit trail of dashboard actions, shown on the People page. The JSON log line stays the
-- operator's record; this is the account's own view of who did what. `details` holds the same
-- ids and facts as the log line (never a secret, a password or a form body).
create table dashboard_audit (
  id bigserial primary key,
  account_id text not null references accounts (id),
  user_id text,
  user_email text,
  action text not null,
  outcome text not null,
  target_id text,
  details jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index dashboard_audit_account on dashboard_audit (account_id, created_at desc, id desc);
