-- Per-key rate limits across API copies (src/request/rate-limit.ts): the token bucket of each key
-- lives here, and every API process leases tokens from it in chunks, so all copies together are
-- held to the key's rate (plus at most one chunk per process, see docs/performance.md).
-- Unlogged: a bucket is a few seconds of state that need not survive a crash or reach a replica
-- (a lost bucket reads as a full one), and its writes skip the WAL.
create unlogged table rate_limit_buckets (
  key_id text primary key references api_keys (id) on delete cascade,
  -- Tokens left after the last lease, as of updated_at (refilled lazily by the next lease).
  tokens double precision not null,
  -- What the last lease took: returned to the process that made it.
  granted double precision not null,
  updated_at timestamptz not null
);
