-- Outbound mail: delivery state on messages, drafts, idempotency, send lists, quota usage,
-- unsubscribe tokens, the shared domain's DKIM key and the local outbox.

-- null for inbound mail; outbound rows are 'sending' from before the transport is called until the
-- outcome is known ('sent'), 'unknown' when the transport could not tell, 'retry' when a draft's
-- delivery failed transiently and the reconcile task will try again.
alter table messages add column delivery_status text check (delivery_status in ('sending', 'sent', 'unknown', 'retry'));
alter table messages add column delivery_attempts integer not null default 0;
alter table messages add column delivery_error text;
-- true when reconciliation recorded the message as sent without proof (no duplicate is risked)
alter table messages add column outcome_assumed boolean not null default false;
alter table messages add column draft_id text;
alter table messages add column raw_outbound bytea;

create table drafts (
  id text primary key,
  account_id text not null references accounts (id),
  mailbox_id text not null references mailboxes (id),
  status text not null default 'draft' check (status in ('draft', 'pending_approval', 'sending', 'sent', 'rejected')),
  to_addr text,
  subject text not null default '',
  text text not null,
  reply_to_message_id text,
  in_reply_to text,
  "references" text[] not null default '{}',
  requires_human boolean not null default false,
  thread_id text not null,
  client_id text,
  last_error text,
  sent_message_id text,
  decided_by text,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index drafts_mailbox_live on drafts (mailbox_id, created_at desc) where deleted_at is null and status not in ('sent', 'rejected');
create index drafts_pending on drafts (account_id, created_at) where status = 'pending_approval' and deleted_at is null;

create table idempotency_keys (
  account_id text not null references accounts (id),
  mailbox_id text not null references mailboxes (id),
  client_id text not null,
  payload_hash text not null,
  state text not null check (state in ('in_progress', 'completed', 'failed_terminal')),
  response_status integer,
  response_body jsonb,
  message_id text,
  -- an in_progress row whose holder died before delivery started may be taken over after this
  locked_until timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (account_id, mailbox_id, client_id)
);
create index idempotency_by_message on idempotency_keys (message_id) where message_id is not null;

create table send_list_entries (
  id text primary key,
  account_id text not null references accounts (id),
  mailbox_id text references mailboxes (id),
  kind text not null check (kind in ('allow', 'block')),
  -- an exact address (user@example.com) or a whole domain (example.com)
  pattern text not null,
  created_at timestamptz not null default now(),
  unique nulls not distinct (account_id, mailbox_id, kind, pattern)
);

create table send_usage (
  account_id text not null references accounts (id),
  month date not null,
  sent integer not null default 0,
  primary key (account_id, month)
);

create table unsubscribe_tokens (
  id text primary key,
  account_id text not null references accounts (id),
  address text not null,
  message_id text,
  used_at timestamptz,
  created_at timestamptz not null default now()
);

create table service_dkim_keys (
  domain text primary key,
  selector text not null,
  private_key text not null,
  public_key text not null,
  created_at timestamptz not null default now()
);

create table service_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);

-- Mail the local transport kept instead of sending it anywhere (a developer mail catcher).
create table local_outbox (
  id text primary key,
  -- the Message-ID of the kept message, without angle brackets
  message_id text,
  mail_from text not null,
  rcpt_to text not null,
  raw bytea not null,
  created_at timestamptz not null default now()
);
