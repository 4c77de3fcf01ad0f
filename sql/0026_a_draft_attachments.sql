-- Attachments on outgoing mail: the files a draft carries until it is sent (docs/api.md,
-- "Attachments on drafts"). Each is checked when it is added (size, count, content type against
-- its bytes, ClamAV when configured), so what is stored here is what goes out. An attachment taken
-- from a received message by reference is a copy of its bytes: the draft no longer depends on the
-- original's retention. Readers of the bytes go through src/core/attachment-bytes.ts.
create table draft_attachments (
  id text primary key,
  draft_id text not null references drafts (id) on delete cascade,
  account_id text not null references accounts (id),
  filename text not null,
  content_type text not null,
  size integer not null check (size >= 0),
  sha256 text not null,
  -- the received attachment it was copied from (POST .../attachments/from-message), or null for an upload
  source_attachment_id text,
  content bytea not null,
  created_at timestamptz not null default now()
);
create index draft_attachments_draft on draft_attachments (draft_id, created_at, id);

do $$
begin
  alter table draft_attachments alter column content set compression lz4;
exception when feature_not_supported then
  raise notice 'lz4 is not available in this PostgreSQL build; keeping pglz';
end $$;
