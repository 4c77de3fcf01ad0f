-- Bounded size (issue 19): after an account's retention (or the service default, RETENTION_DAYS)
-- a message's content is removed and a tombstone row stays: ids, thread, addresses, subject,
-- timestamps and verdicts, so threads, events and idempotency answers still resolve.

-- Days an account keeps message content; null: the service default applies (which may be "forever").
alter table accounts add column retention_days integer check (retention_days between 1 and 36500);

-- When the retention task emptied this message; null while its content is kept.
alter table messages add column purged_at timestamptz;

-- The retention task's scan: oldest messages that still hold content, without reading tombstones.
create index messages_retention_pending on messages (created_at, id) where purged_at is null;
