-- The event log (every message.received event, in order, per account), and named consumers that
-- share an account's events between several readers with per-event leases.

create table event_log (
  -- the cursor clients resume from; appends take a per-account lock first, so within one account
  -- positions commit in increasing order and "everything after N" never skips a late commit
  position bigserial primary key,
  -- the event_id of the payload, the same as the webhook's
  id text not null unique,
  account_id text not null references accounts (id),
  mailbox_id text not null,
  message_id text not null,
  type text not null default 'message.received',
  -- the exact JSON text the webhook sends
  payload text not null,
  created_at timestamptz not null default now(),
  unique (message_id, type)
);
create index event_log_account on event_log (account_id, position);
create index event_log_mailbox on event_log (account_id, mailbox_id, position);
-- retention deletes by age (30 days by default)
create index event_log_created on event_log (created_at);

create table event_consumers (
  id text primary key,
  account_id text not null references accounts (id),
  name text not null,
  -- null: every mailbox of the account; otherwise only this mailbox's events
  mailbox_id text,
  -- every event at or below this position is acknowledged
  acked_through bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (account_id, name)
);

-- An event handed to one reader of a consumer: held until lease_until, done once acked.
create table event_leases (
  consumer_id text not null references event_consumers (id) on delete cascade,
  position bigint not null,
  lease_until timestamptz not null,
  deliveries integer not null default 1,
  acked_at timestamptz,
  primary key (consumer_id, position)
);
