-- Verdicts people correct (POST /api/v1/messages/{id}/feedback, the MCP tool, the dashboard) and
-- what each account learns from its own corrections.
--
-- message_feedback: one row per correction. A message has at most one standing correction per
-- axis (spam: spam/not_spam, injection: injection/safe, fraud: fraud/genuine); a new one on the
-- same axis undoes the standing one first. `tokens` keeps the hashed tokens a spam-axis
-- correction counted, so undoing it removes exactly those counts. Rows of an expired message go
-- with it; what the account learned from them stays.
create table message_feedback (
  id text primary key,
  account_id text not null references accounts (id),
  message_id text not null references messages (id) on delete cascade,
  mailbox_id text not null,
  axis text not null check (axis in ('spam', 'injection', 'fraud')),
  verdict text not null check (verdict in ('spam', 'not_spam', 'injection', 'safe', 'fraud', 'genuine')),
  source text not null check (source in ('api', 'mcp', 'dashboard')),
  -- the API key id or dashboard user id that gave it (only authenticated callers can)
  actor text not null,
  trained text check (trained in ('spam', 'ham')),
  tokens bigint[] not null default '{}',
  created_at timestamptz not null default now(),
  undone_at timestamptz,
  undone_by text
);
create unique index message_feedback_standing on message_feedback (message_id, axis) where undone_at is null;
create index message_feedback_account_recent on message_feedback (account_id, created_at desc);

-- Per-account token statistics, as SpamAssassin's Bayes keeps them: how many of the account's
-- "spam" and "not spam" corrections held each token, and how many of each there are.
create table account_token_stats (
  account_id text not null references accounts (id),
  token bigint not null,
  spam integer not null default 0 check (spam >= 0),
  ham integer not null default 0 check (ham >= 0),
  primary key (account_id, token)
);

create table account_learning (
  account_id text primary key references accounts (id),
  spam_messages integer not null default 0 check (spam_messages >= 0),
  ham_messages integer not null default 0 check (ham_messages >= 0),
  updated_at timestamptz not null default now()
);
