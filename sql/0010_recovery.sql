-- Crash recovery and inbound de-duplication (docs/recovery.md).

-- One row per running Graphile Worker pool (its id is what the pool writes into a job's
-- locked_by). The pool's process holds a session-level advisory lock (7351010, hashtext(id)) for
-- as long as it lives; a registered pool whose lock is gone is dead, and every worker's sweeper
-- hands its jobs back with graphile_worker.force_unlock_workers. Jobs locked by a pool with no row
-- here (an older version of the service) are never touched.
create table worker_pools (
  id text primary key,
  host text not null,
  pid integer not null,
  started_at timestamptz not null default now()
);

-- The first copy of an inbound message per mailbox: a second delivery of the same Message-ID with
-- the same raw bytes within the window (7 days) stores nothing. The primary key is what makes two
-- concurrent deliveries of one message race-safe: the second insert waits for the first to commit.
create table inbound_first_copies (
  mailbox_id text not null references mailboxes (id) on delete cascade,
  rfc_message_id text not null,
  sha256 text not null,
  message_id text not null references messages (id) on delete cascade deferrable initially deferred,
  received_at timestamptz not null default now(),
  primary key (mailbox_id, rfc_message_id, sha256)
);
create index inbound_first_copies_message on inbound_first_copies (message_id);

-- Whether the process running a worker pool is alive: it holds its pool's advisory lock, and
-- PostgreSQL drops that lock the moment the holder's session ends (a killed process's socket
-- closes; a lost machine's is found by TCP keepalive). The two-key form shows in pg_locks as
-- classid = key 1, objid = key 2 (as an unsigned 32-bit number), objsubid = 2.
create function worker_pool_alive(pool_id text) returns boolean language sql stable as $$
  select exists (
    select 1 from pg_locks
    where locktype = 'advisory' and granted and objsubid = 2
      and database = (select oid from pg_database where datname = current_database())
      and classid = 7351010::oid
      and objid = (hashtext(pool_id)::bigint & 4294967295)::oid)
$$;
