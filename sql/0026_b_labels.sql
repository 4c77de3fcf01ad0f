-- Inbox state: labels on messages (docs/api.md, "Labels"). A thread's labels are its messages'
-- (core/labels.ts). `unread` is not stored: an inbound message is unread until it carries `read`
-- (outbound mail is read); `archived` and agent-chosen names are stored as they are.
create table message_labels (
  message_id text not null references messages (id) on delete cascade,
  label text not null,
  account_id text not null references accounts (id),
  created_at timestamptz not null default now(),
  primary key (message_id, label)
);
create index message_labels_by_label on message_labels (account_id, label, message_id);
