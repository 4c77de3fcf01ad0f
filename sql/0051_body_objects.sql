-- Bodies above BLOB_STORE_BODY_THRESHOLD in the object store (BLOB_STORE_URL): the row keeps a
-- prefix of the threshold's size in body_raw / body_clean (lists, snippets and the search
-- document read it in SQL) and names the object holding the whole text, with the SHA-256 of its
-- UTF-8 bytes that a read is checked against. Null key: the column holds the whole body.
alter table messages
  add column body_raw_key text,
  add column body_raw_sha256 text,
  add column body_clean_key text,
  add column body_clean_sha256 text;
