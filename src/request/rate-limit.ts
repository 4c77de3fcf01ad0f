// Per-key request rate limits: a token bucket per API key, so that one runaway agent cannot starve
// the others. A key holds up to RATE_LIMIT_BURST tokens, refilled at RATE_LIMIT_PER_SECOND; every
// authenticated request (HTTP API and MCP) takes one, and a key with none left is answered 429
// {"error":"rate limited"} with a numeric Retry-After and the IETF draft RateLimit-Policy /
// RateLimit fields (draft-ietf-httpapi-ratelimit-headers).
//
// The bucket of record lives in PostgreSQL (rate_limit_buckets, sql/0019), so every API copy draws
// on the same one. A request must not pay a database round trip, so each process leases tokens
// from that bucket in chunks (CHUNK_FRACTION of a second's worth) and spends them locally: across
// all copies a key gets at most burst + rate × t + one chunk per process over any t seconds
// (docs/performance.md "Rate limits"). When the lease cannot reach the database the process falls
// back to its own in-process bucket (fail open, logged): an outage of the database must not turn
// into an outage of every key, and meanwhile the bound is the in-process one, N × rate.
import { ApiError } from "../core/errors.ts";
import type { Services } from "../core/services.ts";
import type { Sql } from "../db.ts";
import { errorFields, type Logger } from "../log.ts";

export type RateLimiter = { take(keyId: string): void | Promise<void> };
type Limits = { perSecond: number; burst: number };

export const RATE_LIMITED = "rate limited";
const MAX_BUCKETS = 100_000;
/** A lease takes this fraction of a second's tokens (at least one): one round trip per chunk. */
const CHUNK_FRACTION = 0.1;
/** A lease that has not answered by then is treated as a database outage. */
const LEASE_TIMEOUT_MS = 1000;
/** At most one "lease failed" log line per this interval, however many requests fall back. */
const FAILURE_LOG_INTERVAL_MS = 10_000;

function policyOf(o: Limits): string {
  return `"per-key";q=${o.burst};w=${Math.ceil(o.burst / o.perSecond)}`;
}

function limited(policy: string, waitSeconds: number): ApiError {
  const wait = Math.max(1, Math.ceil(waitSeconds));
  return new ApiError(
    429,
    { error: RATE_LIMITED },
    {
      "retry-after": String(wait),
      "ratelimit-policy": policy,
      ratelimit: `"per-key";r=0;t=${wait}`,
    },
  );
}

type Bucket = { tokens: number; at: number };

/** The in-process bucket: the fallback while the database is unreachable (and a pure model in tests). */
export function makeRateLimiter(o: Limits, now: () => number = () => performance.now()): { take(keyId: string): void } {
  const buckets = new Map<string, Bucket>();
  const policy = policyOf(o);
  return {
    take(keyId) {
      if (o.perSecond <= 0) return; // 0 turns the limit off
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
        return;
      }
      throw limited(policy, (1 - bucket.tokens) / o.perSecond);
    },
  };
}

/** What one process holds for a key: tokens leased and not yet spent, and what it knows of the bucket. */
type Lease = {
  allowance: number;
  /** The lease in flight, which concurrent requests of this key wait for instead of starting their own. */
  pending: Promise<void> | null;
  /** performance.now() before which the shared bucket is known to hold less than one token. */
  emptyUntil: number;
};

export function leaseChunk(o: Limits): number {
  return Math.max(1, Math.floor(o.perSecond * CHUNK_FRACTION));
}

/** The bucket shared by every copy through PostgreSQL, leased in chunks (see the top of this file). */
export function makeSharedRateLimiter(sql: Sql, log: Logger, o: Limits, now: () => number = () => performance.now()): RateLimiter {
  const leases = new Map<string, Lease>();
  const fallback = makeRateLimiter(o, now);
  const policy = policyOf(o);
  const chunk = leaseChunk(o);
  let lastFailureLog = -Infinity;

  // One statement: refill the bucket for the time since its last lease, take up to a chunk of whole
  // tokens, and say how many were taken. SET expressions all read the row as it was, so `granted`
  // and `tokens` agree; the row lock serializes copies leasing the same key.
  async function lease(keyId: string): Promise<{ granted: number; tokens: number }> {
    // The bucket refilled for the time since its last lease, capped at the burst.
    const refilled = sql`least(${o.burst}::float8, b.tokens + ${o.perSecond}::float8 * greatest(0, extract(epoch from now() - b.updated_at)))`;
    const first = Math.min(chunk, o.burst);
    const [row] = await sql<{ granted: number; tokens: number }[]>`
      insert into rate_limit_buckets as b (key_id, tokens, granted, updated_at)
      values (${keyId}, ${o.burst - first}::float8, ${first}::float8, now())
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
      state.allowance += granted;
      if (granted < 1) state.emptyUntil = now() + ((1 - tokens) / o.perSecond) * 1000;
    } catch (error) {
      const t = now();
      if (t - lastFailureLog >= FAILURE_LOG_INTERVAL_MS) {
        lastFailureLog = t;
        log.error("rate_limit.lease_failed", { key_id: keyId, fallback: "in-process bucket", ...errorFields(error) });
      }
      throw new LeaseFailed();
    }
  }

  async function takeSlow(keyId: string, state: Lease): Promise<void> {
    for (;;) {
      if (state.allowance >= 1) {
        state.allowance -= 1;
        return;
      }
      const t = now();
      if (state.emptyUntil > t) throw limited(policy, (state.emptyUntil - t) / 1000);
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
      if (o.perSecond <= 0) return; // 0 turns the limit off
      let state = leases.get(keyId);
      if (!state) {
        // Dropping what a process holds only loses leased tokens: it never lets a key past its bound.
        if (leases.size >= MAX_BUCKETS) leases.clear();
        leases.set(keyId, (state = { allowance: 0, pending: null, emptyUntil: -Infinity }));
      }
      // The common case costs no round trip and no promise: spend a token already leased.
      if (state.allowance >= 1) {
        state.allowance -= 1;
        return;
      }
      return takeSlow(keyId, state);
    },
  };
}

class LeaseFailed extends Error {}

const perService = new WeakMap<Services, RateLimiter>();

/** The process's limiter for these services (one per service, shared by HTTP and MCP). */
export function rateLimiterFor(svc: Services): RateLimiter {
  let limiter = perService.get(svc);
  if (!limiter) perService.set(svc, (limiter = makeSharedRateLimiter(svc.sql, svc.log, svc.config.rateLimit)));
  return limiter;
}
