-- Accounts, API keys, dashboard users, domains, extraction schemas and mailboxes.

create table accounts (
  id text primary key,
  name text not null check (length(name) between 1 and 200),
  plan text not null default 'free' check (plan in ('free', 'paid')),
  -- null means the plan's default quota from configuration applies
  monthly_send_quota integer check (monthly_send_quota >= 0),
  created_at timestamptz not null default now()
);

create table domains (
  id text primary key,
  account_id text not null references accounts (id),
  name text not null,
  status text not null default 'pending' check (status in ('pending', 'verified', 'failed')),
  dkim_selector text not null,
  dkim_private_key text not null,
  dkim_public_key text not null,
  records jsonb not null,
  last_check jsonb,
  last_checked_at timestamptz,
  verified_at timestamptz,
  created_at timestamptz not null default now(),
  unique (account_id, name)
);
-- Several accounts may claim a name, but only one can hold it verified (its DKIM key is the published one).
create unique index domains_one_verified_owner on domains (name) where status = 'verified';

create table extraction_schemas (
  id text primary key,
  account_id text not null references accounts (id),
  name text not null,
  schema jsonb not null,
  created_at timestamptz not null default now()
);

create table mailboxes (
  id text primary key,
  account_id text not null references accounts (id),
  domain_id text references domains (id),
  local_part text not null,
  domain_name text not null,
  address text not null unique,
  display_name text,
  extraction_schema_id text references extraction_schemas (id),
  require_approval boolean not null default false,
  deliver_spam boolean not null default false,
  created_at timestamptz not null default now()
);
create index mailboxes_account on mailboxes (account_id, created_at);

create table api_keys (
  id text primary key,
  account_id text not null references accounts (id),
  name text,
  scope text not null check (scope in ('bootstrap', 'api', 'mcp')),
  mailbox_id text references mailboxes (id),
  can_read boolean not null default true,
  can_send boolean not null default true,
  -- SHA-256 of the whole secret; the secret itself is never stored
  key_hash bytea not null unique,
  -- the first characters of the secret, so a human can tell keys apart in a list
  key_hint text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_account on api_keys (account_id);

create table dashboard_users (
  id text primary key,
  account_id text not null references accounts (id),
  email text not null unique,
  password_hash text not null,
  created_at timestamptz not null default now()
);
