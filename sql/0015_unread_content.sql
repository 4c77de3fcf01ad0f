-- Why part of an inbound message was left unread (the MIME parser gave up past a limit); null when
-- all of it was read. Screening never reports such a message's comprehension as complete.
alter table messages add column unread_content text;
