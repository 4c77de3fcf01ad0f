// The answers of the per-key rate limit (rate-limit.ts) as the client sees them, on the HTTP API
// and MCP alike: the IETF draft RateLimit-Policy / RateLimit fields (draft-ietf-httpapi-ratelimit-
// headers) on the successful answers to an admitted request (a 400 from validation or a 403 for
// scope comes before the fields are set), and 429 {"error":"rate limited"} with a
// numeric Retry-After and the same fields once its bucket is empty.
//   RateLimit-Policy: "per-key";q=<burst>;w=<seconds for an empty bucket to fill>
//   RateLimit: "per-key";r=<tokens left>;t=<seconds until the bucket is full again>   (admitted)
//   RateLimit: "per-key";r=0;t=<Retry-After>                                            (429)
import { type CoreError, errors } from "../core/errors.ts";

export type Limits = { perSecond: number; burst: number };
export type RateLimitFields = { "ratelimit-policy": string; ratelimit: string };

export const RATE_LIMITED = "rate limited";

export function makeRateLimitFields(o: Limits) {
  const policy = `"per-key";q=${o.burst};w=${Math.ceil(o.burst / o.perSecond)}`;
  return {
    /** The fields on an admitted request's answer; `remaining` tokens after this request. */
    admitted(remaining: number): RateLimitFields {
      const full = Math.ceil((o.burst - remaining) / o.perSecond);
      return { "ratelimit-policy": policy, ratelimit: `"per-key";r=${remaining};t=${full}` };
    },
    /** Retry-After for a wait: whole seconds, at least one (a client may always come back then). */
    retryAfter(waitMs: number): number {
      return Math.max(1, Math.ceil(waitMs / 1000));
    },
    /** The 429 answer telling the client to come back in `retryAfter` seconds. */
    refusal(retryAfter: number): CoreError {
      return errors.rateLimited(retryAfter, {
        "retry-after": String(retryAfter),
        "ratelimit-policy": policy,
        ratelimit: `"per-key";r=0;t=${retryAfter}`,
      });
    },
  };
}
