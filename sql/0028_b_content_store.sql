-- Message content in object storage (BLOB_STORE_URL, src/core/blob-store.ts), optional: a row
-- whose bytes live in the store has content null and blob_key set; without a store every row
-- keeps its bytes here, as before. The SHA-256 each row already has is what a read is checked
-- against.
alter table raw_messages alter column content drop not null;
alter table raw_messages add column blob_key text;
alter table attachments alter column content drop not null;
alter table attachments add column blob_key text;

-- Objects whose rows are gone or emptied (retention, a copy that was not stored), queued in the
-- transaction that let go of them and deleted from the store after it commits; a failed delete
-- stays queued for the next run.
create table blob_deletions (
  key text primary key,
  queued_at timestamptz not null default now()
);
