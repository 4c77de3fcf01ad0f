-- Signed webhooks: an account's endpoint, the message.received events, their deliveries and
-- every attempt.

create table webhook_endpoints (
  account_id text primary key references accounts (id),
  url text not null,
  secret text not null,
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table webhook_events (
  id text primary key,
  account_id text not null references accounts (id),
  message_id text not null references messages (id),
  type text not null default 'message.received',
  -- the exact JSON body sent on every attempt and redrive, so signatures cover identical bytes
  payload text not null,
  created_at timestamptz not null default now(),
  unique (message_id, type)
);

create table webhook_deliveries (
  id text primary key,
  event_id text not null references webhook_events (id),
  account_id text not null references accounts (id),
  state text not null default 'pending' check (state in ('pending', 'delivered', 'dead')),
  -- attempts in the current cycle (a redrive starts a new cycle)
  attempts integer not null default 0,
  redrives integer not null default 0,
  next_attempt_at timestamptz,
  -- an attempt in flight holds the delivery until this time; after it, a safety job retries
  lease_until timestamptz,
  last_status integer,
  last_error text,
  delivered_at timestamptz,
  dead_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_deliveries_account on webhook_deliveries (account_id, created_at desc);
create index webhook_deliveries_dead on webhook_deliveries (account_id) where state = 'dead';

create table webhook_attempts (
  id bigserial primary key,
  delivery_id text not null references webhook_deliveries (id),
  attempted_at timestamptz not null default now(),
  url text not null,
  status integer,
  latency_ms integer,
  error text,
  response_snippet text
);
create index webhook_attempts_delivery on webhook_attempts (delivery_id, id);
