-- Reading mail: threads, cursors, full-text search, reply text and attachment text.

-- The text of each attachment, extracted by the worker (PDF, DOCX, text, CSV, HTML, OCR of images
-- and scanned PDFs). text_status: 'ok', 'empty' (nothing readable), 'unsupported' (a type we do not
-- read), 'too_large', 'error' (a broken or hostile file: text_error says what failed).
alter table attachments add column text text;
alter table attachments add column text_status text check (text_status in ('ok', 'empty', 'unsupported', 'too_large', 'error'));
alter table attachments add column text_error text;
alter table attachments add column text_method text;
-- the prompt-injection verdict on the attachment's text, the same detector as the body's
alter table attachments add column text_injection jsonb;

-- What a human added in this message, without quoted history and signature (set by the worker;
-- null until then, when readers compute it from the body).
alter table messages add column reply_text text;
-- Every attachment's text in one place, for the search document (a generated column can only read
-- its own row).
alter table messages add column attachment_text text;

-- The search document. 'simple' has no stemming or stop words: mail in any language is matched
-- word for word. Inputs are capped so one huge body cannot exceed tsvector's 1 MB limit.
alter table messages add column search tsvector generated always as (
  setweight(to_tsvector('simple'::regconfig, coalesce(subject, '')), 'A') ||
  setweight(to_tsvector('simple'::regconfig, coalesce(from_addr, '') || ' ' || translate(coalesce(from_addr, ''), '@.', '  ')), 'A') ||
  setweight(to_tsvector('simple'::regconfig, left(coalesce(body_clean, ''), 100000)), 'B') ||
  setweight(to_tsvector('simple'::regconfig, left(coalesce(attachment_text, ''), 100000)), 'C')
) stored;
create index messages_search on messages using gin (search);

-- Threads of a mailbox by latest activity, and one thread's messages in order.
create index messages_mailbox_thread on messages (mailbox_id, thread_id, created_at, id);
-- A thread by its id alone (an account-wide key names no mailbox).
create index messages_thread on messages (thread_id, created_at, id);
