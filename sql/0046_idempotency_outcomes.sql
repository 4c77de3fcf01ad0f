-- A client_id keeps its send's outcome, a kind and the data its answer is built from
-- (src/core/outbound/outcome.ts), instead of the HTTP status and body it was first answered with:
-- the edges word an outcome (src/request/send-answers.ts), storage does not.
alter table idempotency_keys add column outcome jsonb;

-- An answer stored before this change, as the outcome it stood for. The prefixes are the exact
-- wording the service put before the transport's error.
create function idempotency_outcome_of(status integer, body jsonb) returns jsonb
language sql immutable as $$
  select case
    when status in (200, 201) then jsonb_build_object(
      'kind', 'sent', 'messageId', body ->> 'id', 'threadId', body ->> 'thread_id',
      'draftId', body ->> 'draft_id', 'providerMessageId', body ->> 'provider_message_id')
    when status = 202 and body ->> 'status' = 'scheduled' then jsonb_build_object(
      'kind', 'scheduled', 'draftId', body ->> 'draft_id', 'scheduledAt', body ->> 'scheduled_at')
    when status = 202 then jsonb_build_object('kind', 'pending_approval', 'draftId', body ->> 'draft_id')
    when status = 402 then jsonb_build_object('kind', 'quota_exhausted')
    when status = 400 then jsonb_build_object(
      'kind', 'refused', 'error', regexp_replace(body ->> 'error', '^recipient server rejected the message: ', ''))
    when status = 502 and body ->> 'code' = 'delivery_outcome_unknown' then jsonb_build_object(
      'kind', 'outcome_unknown',
      'error', regexp_replace(body ->> 'error', '^delivery outcome unknown, the message may or may not have arrived: ', ''))
    when status = 502 then jsonb_build_object(
      'kind', 'failed_temporarily', 'error', regexp_replace(body ->> 'error', '^delivery failed temporarily: ', ''))
  end
$$;

update idempotency_keys set outcome = idempotency_outcome_of(response_status, response_body)
where response_status is not null;

-- During a rolling upgrade a process of the previous version still writes the old columns: its
-- answer is kept as an outcome too. The old columns go in a later migration, once no such process runs.
create function idempotency_outcome_fill() returns trigger
language plpgsql as $$
begin
  new.outcome := idempotency_outcome_of(new.response_status, new.response_body);
  return new;
end
$$;

create trigger idempotency_outcome_fill before insert or update on idempotency_keys
for each row when (new.outcome is null and new.response_status is not null)
execute function idempotency_outcome_fill();
