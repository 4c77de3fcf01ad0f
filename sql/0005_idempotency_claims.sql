-- The request holding an idempotency claim is named by a random token, so a request that took an
-- abandoned claim over and the slow original holder can never both attach a delivery to it.
alter table idempotency_keys add column claim_token text;
