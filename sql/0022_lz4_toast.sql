-- The large text and byte columns written on every accept and send are compressed with lz4 rather
-- than PostgreSQL's default pglz. Measured on this project's machine (10 KB of text in three
-- columns, as an inbound message writes raw, body_raw and body_clean): 0.58 ms of backend CPU per
-- row with pglz against 0.19 ms with lz4, and the accept transaction runs in that backend before the 250
-- (docs/performance.md, "Inbound SMTP"). Only values written from now on use it; existing rows keep
-- theirs, and reading mixes both. A server built without lz4 (the setting is a build option)
-- keeps pglz: the change is skipped with a notice rather than failing the migration.
do $$
begin
  alter table raw_messages alter column content set compression lz4;
  alter table messages alter column body_raw set compression lz4,
    alter column body_clean set compression lz4,
    alter column raw_outbound set compression lz4;
  alter table attachments alter column content set compression lz4;
exception when feature_not_supported then
  raise notice 'lz4 is not available in this PostgreSQL build; keeping pglz';
end $$;
