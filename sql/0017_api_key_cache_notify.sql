-- API-key cache invalidation (src/core/key-cache.ts): every API process caches the principal of a
-- key it has seen, and drops its whole cache when this channel fires. Any change to a key (revoked,
-- re-scoped, deleted) or to an account (plan, deletion) notifies at COMMIT, whatever code path made
-- it: a statement-level trigger, so a bulk change notifies once.
create function notify_api_key_cache() returns trigger language plpgsql as $$
begin
  perform pg_notify('api_key_cache', '');
  return null;
end
$$;

create trigger api_keys_cache_notify after update or delete on api_keys
  for each statement execute function notify_api_key_cache();
create trigger accounts_cache_notify after update or delete on accounts
  for each statement execute function notify_api_key_cache();
