// Where /send is made idempotent: one row per (account, mailbox, client_id) holding the payload's
// hash, a state and the send's outcome (outcome.ts), which a retry is given back. The row's primary
// key is what makes two racing requests deliver exactly once: only the request that inserted it
// proceeds. The outcome is stored as its kind and data, never as an HTTP answer: the edges word it.
import type { Db } from "../../db.ts";
import { sha256Hex } from "../../secrets.ts";
import { errors } from "../errors.ts";
import { randomBase32 } from "../ids.ts";
import { replayOf, type SendOutcome, storedState } from "./outcome.ts";

export type IdempotencyKey = { accountId: string; mailboxId: string; clientId: string };
/** A claimed key: only the holder of this token may attach a delivery to it or finish it. */
export type IdempotencyClaim = IdempotencyKey & { token: string };

/**
 * How long an in_progress claim whose holder never recorded its send blocks a retry. Short, so a
 * retry after a crash between the claim and the record gets a final answer within a minute; safe
 * however short, because only the claim's token may attach a send to it (attachMessage): a slow
 * holder that lost its claim sends nothing.
 */
const CLAIM_SECONDS = 20;

export async function payloadHash(payload: Record<string, unknown>): Promise<string> {
  const canonical = JSON.stringify(
    Object.keys(payload)
      .sort()
      .map((key) => [key, payload[key] ?? null]),
  );
  return sha256Hex(canonical);
}

/**
 * Claims the key for this request, or answers for it: the stored outcome of a completed or
 * terminally failed send, idempotency_conflict for another payload, idempotency_in_progress while
 * another request (or an unknown outcome) holds it.
 */
export async function claimIdempotencyKey(
  db: Db,
  key: IdempotencyKey,
  hash: string,
): Promise<{ claimed: true; claim: IdempotencyClaim } | { claimed: false; replay: SendOutcome }> {
  const token = randomBase32(20);
  const inserted = await db`
    insert into idempotency_keys (account_id, mailbox_id, client_id, payload_hash, state, locked_until, claim_token)
    values (${key.accountId}, ${key.mailboxId}, ${key.clientId}, ${hash}, 'in_progress', now() + make_interval(secs => ${CLAIM_SECONDS}), ${token})
    on conflict do nothing
    returning client_id`;
  if (inserted.length > 0) return { claimed: true, claim: { ...key, token } };

  const [existing] = await db`
    select payload_hash, state, outcome, message_id, locked_until < now() as expired
    from idempotency_keys
    where account_id = ${key.accountId} and mailbox_id = ${key.mailboxId} and client_id = ${key.clientId}`;
  if (!existing) return claimIdempotencyKey(db, key, hash); // released between our two statements
  if (existing.payload_hash !== hash) throw errors.idempotencyConflict();
  if (existing.state === "completed" || existing.state === "failed_terminal") {
    return { claimed: false, replay: replayOf(existing.outcome as SendOutcome) };
  }
  // A holder that died before it recorded a delivery attempt left nothing to reconcile: take over.
  if (existing.expired && existing.message_id === null) {
    const taken = await db`
      update idempotency_keys set locked_until = now() + make_interval(secs => ${CLAIM_SECONDS}), claim_token = ${token}, updated_at = now()
      where account_id = ${key.accountId} and mailbox_id = ${key.mailboxId} and client_id = ${key.clientId}
        and state = 'in_progress' and message_id is null and locked_until < now()
      returning client_id`;
    if (taken.length > 0) return { claimed: true, claim: { ...key, token } };
  }
  throw errors.idempotencyInProgress();
}

/**
 * Ties the claim to the outbound message, in the transaction that records it, before the
 * transport is called. A claim taken over by another request meanwhile is 409: nothing is sent.
 */
export async function attachMessage(db: Db, claim: IdempotencyClaim, messageId: string): Promise<void> {
  const rows = await db`
    update idempotency_keys set message_id = ${messageId}, updated_at = now()
    where account_id = ${claim.accountId} and mailbox_id = ${claim.mailboxId} and client_id = ${claim.clientId}
      and claim_token = ${claim.token} and state = 'in_progress' and message_id is null
    returning client_id`;
  if (rows.length === 0) throw errors.idempotencyInProgress();
}

/**
 * Stores the outcome for replays, or frees the client_id when the outcome is not kept
 * (storedState, outcome.ts); idempotency_in_progress if the claim is no longer this request's.
 */
export async function finishIdempotencyKey(db: Db, claim: IdempotencyClaim, outcome: SendOutcome): Promise<void> {
  const state = storedState(outcome);
  if (state === null) return releaseIdempotencyKey(db, claim);
  const rows = await db`
    update idempotency_keys set state = ${state}, outcome = ${db.json(outcome as never)}, updated_at = now()
    where account_id = ${claim.accountId} and mailbox_id = ${claim.mailboxId} and client_id = ${claim.clientId}
      and claim_token = ${claim.token} and state = 'in_progress'
    returning client_id`;
  if (rows.length === 0) throw errors.idempotencyInProgress();
}

/**
 * Forgets the claim so that a retry with the same client_id runs again (transient failures,
 * policy refusals). A claim whose message still exists may have been delivered: it stays.
 */
export async function releaseIdempotencyKey(db: Db, claim: IdempotencyClaim): Promise<void> {
  await db`
    delete from idempotency_keys k
    where k.account_id = ${claim.accountId} and k.mailbox_id = ${claim.mailboxId} and k.client_id = ${claim.clientId}
      and k.claim_token = ${claim.token} and k.state = 'in_progress'
      and (k.message_id is null or not exists (select 1 from messages m where m.id = k.message_id))`;
}

/**
 * The outcome of the send a claim tied to `messageId` was waiting on (attachMessage): stored for
 * replays, or the claim released when the outcome is not kept. Recorded with the outcome itself
 * (record-outcome.ts, recordOutcome), whoever recorded it: the sending request or the reconcile task.
 */
export async function finishByMessage(db: Db, messageId: string, outcome: SendOutcome): Promise<void> {
  const state = storedState(outcome);
  if (state === null) {
    await db`delete from idempotency_keys where message_id = ${messageId} and state = 'in_progress'`;
    return;
  }
  await db`
    update idempotency_keys set state = ${state}, outcome = ${db.json(outcome as never)}, updated_at = now()
    where message_id = ${messageId} and state = 'in_progress'`;
}
