-- The search document is no longer computed in the inbound accept transaction (before the SMTP
-- 250): to_tsvector over a 10 KB body took 3–5 ms of the ~15 ms of that transaction. It becomes an
-- ordinary column, filled by the worker's screening when it records its verdicts
-- (src/core/screening/record.ts), by the send path when it records an outbound message
-- (src/core/dispatch.ts), and reduced to subject and sender by retention (src/core/retention.ts).
-- An inbound message not yet screened has no search document and is not found by search yet.

-- The same document sql/0012 generated, in one place: 'simple' (no stemming, no stop words),
-- subject and sender weight A, clean body B, attachment text C, inputs capped so one huge body
-- cannot exceed tsvector's 1 MB limit. Immutable: it reads only its arguments.
create function message_search_document(subject text, from_addr text, body_clean text, attachment_text text)
returns tsvector language sql immutable parallel safe as $$
  select setweight(to_tsvector('simple'::regconfig, coalesce(subject, '')), 'A') ||
    setweight(to_tsvector('simple'::regconfig, coalesce(from_addr, '') || ' ' || translate(coalesce(from_addr, ''), '@.', '  ')), 'A') ||
    setweight(to_tsvector('simple'::regconfig, left(coalesce(body_clean, ''), 100000)), 'B') ||
    setweight(to_tsvector('simple'::regconfig, left(coalesce(attachment_text, ''), 100000)), 'C')
$$;

-- Existing rows keep the document they have: copied from the generated column, which then goes
-- (its GIN index with it) and is replaced by the plain one under the same name and index name.
alter table messages add column search_document tsvector;
update messages set search_document = search;
alter table messages drop column search;
alter table messages rename column search_document to search;
create index messages_search on messages using gin (search);
