-- The flattened header fields (first value of each, lower-case names) that screening and
-- comprehension read, kept when the listener parses the message so the worker need not parse it again.
alter table messages add column headers jsonb;
