-- Outbound and review events beside message.received: message.sent, message.delivered,
-- message.send_failed, message.bounced, message.complained, draft.pending_approval, draft.approved,
-- draft.rejected (src/core/outbound-events.ts). They name an outbound message, a draft or both,
-- and some happen more than once per message (a draft queued twice, two bounces), so the
-- one-event-per-(message, type) rule stays for message.received only, and a retried writer
-- (a screening job reading the same bounce again) is kept out by an optional dedupe key.

alter table event_log alter column message_id drop not null;
alter table event_log add column draft_id text;
alter table event_log add column dedupe_key text;
alter table event_log drop constraint event_log_message_id_type_key;
create unique index event_log_received_once on event_log (message_id) where type = 'message.received';
create unique index event_log_dedupe on event_log (dedupe_key) where dedupe_key is not null;
-- an outbound message's history (GET /api/v1/messages/{id}/events)
create index event_log_message on event_log (message_id, position) where message_id is not null;
create index event_log_draft on event_log (draft_id, position) where draft_id is not null;

-- The webhook copy of an outbound event: the message may be gone (a failed send leaves no row),
-- and a draft event names no message at all.
alter table webhook_events alter column message_id drop not null;
alter table webhook_events drop constraint webhook_events_message_id_fkey;
alter table webhook_events drop constraint webhook_events_message_id_type_key;
create unique index webhook_events_received_once on webhook_events (message_id) where type = 'message.received';

-- Which event types the account's webhook receives: message.received always (SPEC), the others
-- only when a human opts in (dashboard, or `cli webhook set --events`).
alter table webhook_endpoints add column event_types text[] not null default '{message.received}'
  check ('message.received' = any (event_types));

-- Why a draft waits for a human when it is not the mailbox's require_approval setting (the loop
-- guard: 'reply to automatic mail ...'); null when held by the setting or not held.
alter table drafts add column held_reason text;
