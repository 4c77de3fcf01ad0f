-- Staged slices (sql/0048) live for one accept: compressing each MiB on the way in and
-- decompressing it when the accept statement assembles the content is CPU spent twice for
-- nothing, at the moment a large message arrives. The assembled content is compressed once,
-- in its own column (sql/0022).
alter table inbound_content_slices alter column bytes set storage external;
