-- Event cursors are now opaque and bound to their account (src/core/event-cursor.ts). A decimal
-- cursor handed out before keeps working up to the newest position at this upgrade; a larger
-- decimal is refused like any cursor this API did not give.
insert into service_secrets (name, value)
select 'event_cursor_legacy_max', coalesce(max(position), 0)::text from event_log
on conflict (name) do nothing;
