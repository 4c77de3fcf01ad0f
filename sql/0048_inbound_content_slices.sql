-- Large inbound content (a raw message or an attachment over 1 MiB) reaches the database in
-- slices before the accept statement that stores its message (src/core/inbound/staged-content.ts):
-- as one parameter of that statement, the client encoded and wrote all of it in one synchronous
-- step. The accept statement assembles a content from its slices and deletes them; slices left by
-- an accept that never ran (its process ended in between) are deleted by a later one after an hour.
create table inbound_content_slices (
  staged_id text not null,
  seq integer not null,
  bytes bytea not null,
  staged_at timestamptz not null default now(),
  primary key (staged_id, seq)
);

create index inbound_content_slices_staged_at on inbound_content_slices (staged_at);
