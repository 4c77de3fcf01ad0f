-- Human in the loop (issue 31): reviewers told by email, one-click answers through single-use
-- links, reviews that expire, mailboxes a human can pause.

-- How long a draft waits for a human before it is rejected as expired; paused: sends and draft
-- submissions are held for a human (docs/decisions.md), inbound mail keeps arriving.
alter table mailboxes add column review_window_hours integer not null default 72 check (review_window_hours between 1 and 8760);
alter table mailboxes add column paused_at timestamptz;
alter table mailboxes add column paused_by text;

-- Who is told of a pending approval: every dashboard user of the account unless switched off.
alter table dashboard_users add column reviews_drafts boolean not null default true;

-- The key that wrote the draft, shown to its reviewers (no foreign key: keys are never deleted,
-- and a draft must outlive any change to that table).
alter table drafts add column created_by_key_id text;

-- Where a dashboard action, or an answer through a review link, came from.
alter table dashboard_audit add column client text;

-- One review per stay of a draft in pending_approval. `draft_version` is the draft's updated_at
-- when it entered the queue: a link answers that version only (an edit moves updated_at).
create table draft_reviews (
  id text primary key,
  draft_id text not null references drafts (id),
  account_id text not null references accounts (id),
  draft_version timestamptz not null,
  reason text not null,
  expires_at timestamptz not null,
  outcome text check (outcome in ('approved', 'rejected', 'expired')),
  decided_by text,
  decided_at timestamptz,
  notified_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index draft_reviews_open on draft_reviews (draft_id) where outcome is null;
create index draft_reviews_draft on draft_reviews (draft_id, created_at desc);

-- One link per reviewer per review; only the SHA-256 of its token is kept. Used once.
create table review_links (
  token_hash bytea primary key,
  review_id text not null references draft_reviews (id),
  user_id text not null references dashboard_users (id) on delete cascade,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index review_links_review on review_links (review_id);
