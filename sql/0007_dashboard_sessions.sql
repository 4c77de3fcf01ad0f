-- Dashboard sign-in: sessions (only a SHA-256 of the cookie token is kept) and recent sign-in
-- attempts, counted per submitted email to throttle password guessing across every API process.
-- An attempt's row is written before the password is checked and deleted when the sign-in
-- succeeds, so the rows in the window are failures (and guesses still in flight).

create table dashboard_sessions (
  token_hash bytea primary key,
  user_id text not null references dashboard_users (id) on delete cascade,
  account_id text not null references accounts (id),
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
create index dashboard_sessions_user on dashboard_sessions (user_id);
create index dashboard_sessions_last_seen on dashboard_sessions (last_seen_at);

create table dashboard_login_failures (
  id bigserial primary key,
  -- the email as submitted (normalized), whether or not such a user exists
  email text not null,
  failed_at timestamptz not null default now()
);
create index dashboard_login_failures_email on dashboard_login_failures (email, failed_at);
