// Per-key request rate limits: a token bucket per API key, so that one runaway agent cannot starve
// the others. A key holds up to RATE_LIMIT_BURST tokens, refilled at RATE_LIMIT_PER_SECOND; every
// authenticated request (HTTP API and MCP) takes one. An admitted request's answer carries the
// RateLimit-Policy / RateLimit fields (draft-ietf-httpapi-ratelimit-headers) with the tokens left;
// a key with none left is answered 429 {"error":"rate limited"} with a numeric Retry-After and the
// same fields (rate-limit-fields.ts), after a short hold when it keeps coming back before its
// Retry-After (rate-limit-hold.ts).
//
// The bucket of record lives in PostgreSQL (rate_limit_buckets, sql/0019), so every API copy draws
// on the same one. A request must not pay a database round trip, so each process leases tokens
// from that bucket in chunks (CHUNK_FRACTION of a second's worth) and spends them locally: across
// all copies a key gets at most burst + rate × t + one chunk per process over any t seconds
// (docs/performance.md "Rate limits"). When the lease cannot reach the database the process falls
// back to its own in-process bucket (fail open, logged): an outage of the database must not turn
// into an outage of every key, and meanwhile the bound is the in-process one, N × rate.
import type { Services } from "../core/services.ts";
import type { Sql } from "../db.ts";
import { errorFields, type Logger } from "../log.ts";
import { type Limits, makeRateLimitFields, type RateLimitFields } from "./rate-limit-fields.ts";
import { type HoldOptions, makeRefusalHold } from "./rate-limit-hold.ts";

/** What a bucket says to one request: admitted with about `remaining` tokens left, or refused for `waitMs`. */
export type Verdict = { admitted: true; remaining: number } | { admitted: false; waitMs: number };
export type Bucket = { take(keyId: string): Verdict | Promise<Verdict> };

/**
 * What HTTP and MCP call once per authenticated request: the RateLimit fields for the answer (null
 * when limits are off), or a 429 CoreError thrown (or rejected, after a hold) when the key is out of tokens.
 */
export type RateLimiter = {
  take(keyId: string): RateLimitFields | null | Promise<RateLimitFields | null>;
  /** Requests held before their 429 right now, of one key or of the whole process (rate-limit-hold.ts). */
  held(keyId?: string): number;
};

const MAX_BUCKETS = 100_000;
/** A lease takes this fraction of a second's tokens (at least one): one round trip per chunk. */
const CHUNK_FRACTION = 0.1;
/** A lease that has not answered by then is treated as a database outage. */
const LEASE_TIMEOUT_MS = 1000;
/** At most one "lease failed" log line per this interval, however many requests fall back. */
const FAILURE_LOG_INTERVAL_MS = 10_000;

type Tokens = { tokens: number; at: number };

/** The in-process bucket: the fallback while the database is unreachable (and a pure model in tests). */
export function makeLocalBucket(o: Limits, now: () => number = () => performance.now()): { take(keyId: string): Verdict } {
  const buckets = new Map<string, Tokens>();
  return {
    take(keyId) {
      const t = now();
      let bucket = buckets.get(keyId);
      if (!bucket) {
        // Full buckets carry no information: when the map is large, forget them all and start over.
        if (buckets.size >= MAX_BUCKETS) buckets.clear();
        buckets.set(keyId, (bucket = { tokens: o.burst, at: t }));
      } else {
        bucket.tokens = Math.min(o.burst, bucket.tokens + ((t - bucket.at) / 1000) * o.perSecond);
        bucket.at = t;
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { admitted: true, remaining: Math.floor(bucket.tokens) };
      }
      return { admitted: false, waitMs: ((1 - bucket.tokens) / o.perSecond) * 1000 };
    },
  };
}

/** What one process holds for a key: tokens leased and not yet spent, and what it knows of the bucket. */
type Lease = {
  allowance: number;
  /** The lease in flight, which concurrent requests of this key wait for instead of starting their own. */
  pending: Promise<void> | null;
  /** performance.now() before which this process does not lease again (the row holds less than a chunk). */
  nextLeaseAt: number;
  /** The row's tokens after the last lease, and when: for the `remaining` estimate only. */
  rowTokens: number;
  rowAt: number;
};

export function leaseChunk(o: Limits): number {
  return Math.max(1, Math.floor(o.perSecond * CHUNK_FRACTION));
}

/** The bucket shared by every copy through PostgreSQL, leased in chunks (see the top of this file). */
export function makeSharedBucket(sql: Sql, log: Logger, o: Limits, now: () => number = () => performance.now()): Bucket {
  const leases = new Map<string, Lease>();
  const fallback = makeLocalBucket(o, now);
  const chunk = leaseChunk(o);
  // What a lease waits for once the row ran short: a whole chunk (or the whole burst, if smaller).
  const fullChunk = Math.min(chunk, o.burst);
  let lastFailureLog = -Infinity;

  // One statement: refill the bucket for the time since its last lease, take up to a chunk of whole
  // tokens, and say how many were taken. SET expressions all read the row as it was, so `granted`
  // and `tokens` agree; the row lock serializes copies leasing the same key.
  async function lease(keyId: string): Promise<{ granted: number; tokens: number }> {
    // The bucket refilled for the time since its last lease, capped at the burst.
    const refilled = sql`least(${o.burst}::float8, b.tokens + ${o.perSecond}::float8 * greatest(0, extract(epoch from now() - b.updated_at)))`;
    const [row] = await sql<{ granted: number; tokens: number }[]>`
      insert into rate_limit_buckets as b (key_id, tokens, granted, updated_at)
      values (${keyId}, ${o.burst - fullChunk}::float8, ${fullChunk}::float8, now())
      on conflict (key_id) do update set
        granted = least(${chunk}::float8, floor(${refilled})),
        tokens = ${refilled} - least(${chunk}::float8, floor(${refilled})),
        updated_at = now()
      returning granted, tokens`;
    return row!;
  }

  function withTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`rate limit lease took longer than ${LEASE_TIMEOUT_MS} ms`)), LEASE_TIMEOUT_MS);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  async function refill(keyId: string, state: Lease): Promise<void> {
    try {
      const { granted, tokens } = await withTimeout(lease(keyId));
      const t = now();
      state.allowance += granted;
      state.rowTokens = tokens;
      state.rowAt = t;
      // Less than a chunk means the row is drained (under 1 token left). Leasing again as soon as
      // one token is back would cost a flooding key a round trip per token (an upsert per
      // admitted request); waiting for a whole chunk keeps it to one per chunk, and the tokens
      // wait in the row, so the key's rate is unchanged.
      if (granted < fullChunk) state.nextLeaseAt = t + ((fullChunk - tokens) / o.perSecond) * 1000;
    } catch (error) {
      const t = now();
      if (t - lastFailureLog >= FAILURE_LOG_INTERVAL_MS) {
        lastFailureLog = t;
        log.error("rate_limit.lease_failed", { key_id: keyId, fallback: "in-process bucket", ...errorFields(error) });
      }
      throw new LeaseFailed();
    }
  }

  /** About how many tokens the key has left: this copy's allowance and the row as last seen, refilled since. */
  function remaining(state: Lease, t: number): number {
    const row = Math.min(o.burst, state.rowTokens + ((t - state.rowAt) / 1000) * o.perSecond);
    return Math.floor(Math.min(o.burst, state.allowance + row));
  }

  async function takeSlow(keyId: string, state: Lease): Promise<Verdict> {
    for (;;) {
      const t = now();
      if (state.allowance >= 1) {
        state.allowance -= 1;
        return { admitted: true, remaining: remaining(state, t) };
      }
      if (state.nextLeaseAt > t) return { admitted: false, waitMs: state.nextLeaseAt - t };
      if (!state.pending) {
        state.pending = refill(keyId, state).finally(() => (state.pending = null));
      }
      try {
        await state.pending;
      } catch (error) {
        if (error instanceof LeaseFailed) return fallback.take(keyId);
        throw error;
      }
    }
  }

  return {
    take(keyId) {
      let state = leases.get(keyId);
      if (!state) {
        // Dropping what a process holds only loses leased tokens: it never lets a key past its bound.
        if (leases.size >= MAX_BUCKETS) leases.clear();
        leases.set(keyId, (state = { allowance: 0, pending: null, nextLeaseAt: -Infinity, rowTokens: o.burst, rowAt: now() }));
      }
      // The common case costs no round trip and no promise: spend a token already leased.
      if (state.allowance >= 1) {
        state.allowance -= 1;
        return { admitted: true, remaining: remaining(state, now()) };
      }
      return takeSlow(keyId, state);
    },
  };
}

class LeaseFailed extends Error {}

/** A bucket answered through the RateLimit fields, refusals held by the refusal hold. */
export function makeRateLimiter(bucket: Bucket, o: Limits & HoldOptions, now: () => number = () => performance.now()): RateLimiter {
  if (o.perSecond <= 0) return { take: () => null, held: () => 0 }; // 0 turns the limit off
  const fields = makeRateLimitFields(o);
  const hold = makeRefusalHold(o, fields, now);
  const answer = (keyId: string, verdict: Verdict): RateLimitFields | Promise<never> =>
    verdict.admitted ? fields.admitted(verdict.remaining) : hold.refuse(keyId, verdict.waitMs);
  return {
    take(keyId) {
      const verdict = bucket.take(keyId);
      return verdict instanceof Promise ? verdict.then((v) => answer(keyId, v)) : answer(keyId, verdict);
    },
    held: hold.held,
  };
}

const perService = new WeakMap<Services, RateLimiter>();

/** The process's limiter for these services (one per service, shared by HTTP and MCP). */
export function rateLimiterFor(svc: Services): RateLimiter {
  let limiter = perService.get(svc);
  if (!limiter) {
    const o = svc.config.rateLimit;
    perService.set(svc, (limiter = makeRateLimiter(makeSharedBucket(svc.sql, svc.log, o), o)));
  }
  return limiter;
}
