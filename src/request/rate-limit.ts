// Per-key request rate limits: a token bucket per API key, so that one runaway agent cannot starve
// the others. A key holds up to RATE_LIMIT_BURST tokens, refilled at RATE_LIMIT_PER_SECOND; every
// authenticated request (HTTP API and MCP) takes one, and a key with none left is answered 429
// {"error":"rate limited"} with a numeric Retry-After and the IETF draft RateLimit-Policy /
// RateLimit fields (draft-ietf-httpapi-ratelimit-headers). The buckets live in each API process:
// with N API processes behind a balancer a key gets at most N × the configured rate (documented in
// README "Rate limits"); the check costs no database round trip.
import { ApiError } from "../core/errors.ts";
import type { Config } from "../config.ts";

type Bucket = { tokens: number; at: number };

export type RateLimiter = { take(keyId: string): void };

export const RATE_LIMITED = "rate limited";
const MAX_BUCKETS = 100_000;

export function makeRateLimiter(o: { perSecond: number; burst: number }, now: () => number = () => performance.now()): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const windowSeconds = Math.ceil(o.burst / o.perSecond);
  const policy = `"per-key";q=${o.burst};w=${windowSeconds}`;
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
      const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / o.perSecond));
      throw new ApiError(429, { error: RATE_LIMITED }, {
        "retry-after": String(wait),
        "ratelimit-policy": policy,
        ratelimit: `"per-key";r=0;t=${wait}`,
      });
    },
  };
}

const perConfig = new WeakMap<Config, RateLimiter>();

/** The process's limiter for this configuration (one per service, shared by HTTP and MCP). */
export function rateLimiterFor(config: Config): RateLimiter {
  let limiter = perConfig.get(config);
  if (!limiter) perConfig.set(config, (limiter = makeRateLimiter(config.rateLimit)));
  return limiter;
}
