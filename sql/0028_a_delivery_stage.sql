-- How far an outbound delivery attempt got (docs/recovery.md, "Outbound: never sent unless it was").
-- delivery_started_at: when the current attempt began (the record, or a redelivery taking over).
-- final_dot_at: written just before the final dot of the current attempt goes out, on the row
-- still in 'sending' at that attempt's number; a crash before it means the server certainly did
-- not accept the message, so the reconcile task delivers it again; after it, without a reply, the
-- outcome is unknown and is reported as such (never as sent).
-- delivery_stage: the SMTP stage the last attempt reached (connect ... final), with its outcome.
alter table messages add column delivery_started_at timestamptz;
alter table messages add column final_dot_at timestamptz;
alter table messages add column delivery_stage text;
