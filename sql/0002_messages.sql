-- Inbound and outbound messages, the raw bytes they came from, and their attachments.

-- One row per SMTP transaction (or local delivery): the bytes as received, stored once however
-- many of our mailboxes the message was addressed to.
create table raw_messages (
  id text primary key,
  size integer not null,
  sha256 text not null,
  content bytea not null,
  -- the SMTP envelope and connection, needed later to check SPF and to write Received-SPF
  remote_ip text,
  helo text,
  mail_from text,
  received_at timestamptz not null default now()
);

create table messages (
  id text primary key,
  account_id text not null references accounts (id),
  mailbox_id text not null references mailboxes (id),
  raw_message_id text references raw_messages (id),
  direction text not null check (direction in ('in', 'out')),
  provider_message_id text,
  rfc_message_id text,
  thread_id text not null,
  in_reply_to text,
  "references" text[] not null default '{}',
  from_addr text not null,
  to_addr text not null,
  subject text not null default '',
  body_raw text,
  body_clean text,
  truncated boolean not null default false,
  sanitization jsonb,
  -- text removed as invisible to a human; kept for the prompt-injection detector, never returned
  hidden_text text,
  comprehension jsonb,
  auth_results jsonb,
  spam_risk text check (spam_risk in ('low', 'high', 'error')),
  virus_risk text check (virus_risk in ('low', 'high')),
  -- parse problems worth an operator's attention (the message is stored regardless)
  parse_warnings text[] not null default '{}',
  processed_at timestamptz,
  created_at timestamptz not null default now()
);
create index messages_mailbox_recent on messages (mailbox_id, created_at desc, id desc);
create index messages_by_rfc_id on messages (mailbox_id, rfc_message_id) where rfc_message_id is not null;
create index messages_by_provider_id on messages (provider_message_id) where provider_message_id is not null;

create table attachments (
  id text primary key,
  message_id text not null references messages (id) on delete cascade,
  filename text,
  content_type text not null,
  size integer not null,
  sha256 text not null,
  content_id text,
  disposition text,
  content bytea not null
);
create index attachments_message on attachments (message_id);

-- Recipients an account must not send to again.
create table suppressions (
  id text primary key,
  account_id text not null references accounts (id),
  address text not null,
  reason text not null check (reason in ('bounce', 'complaint', 'unsubscribe', 'manual')),
  source_message_id text,
  created_at timestamptz not null default now(),
  unique (account_id, address)
);
