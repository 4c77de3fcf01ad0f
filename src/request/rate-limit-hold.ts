// The refusal hold: a key that comes back before the Retry-After it was given gets its next 429
// only after a short hold (RATE_LIMIT_REFUSAL_HOLD_MS, never past that Retry-After).
//
// Why: a 429 is cheap but not free (HTTP parsing, routing, the key check: tens of microseconds on
// the API's one event loop), and a client that retries at once on every connection (a closed loop)
// turns each answer into the next request: 20 connections made ~10,000 refused requests a second,
// enough to multiply every other key's p99 (docs/performance.md "Rate limits"). Held, each of those
// connections asks at most about once per hold: 20 connections at 250 ms, 80 to 160 refusals a second.
//
// Each hold lasts between half the setting and the whole of it, at random, so the connections of a
// flood released together do not all come back together.
//
// What a client that honours Retry-After sees is unchanged: its first 429 (and any 429 after it
// waited as told) is answered at once, with the same status, body and fields. Only requests that
// arrive while an earlier Retry-After of the same key is still running are held, and the 429 they
// get after the hold carries a Retry-After counted from the moment it is sent.
//
// Holding must not cost memory without bound: at most RATE_LIMIT_HELD_PER_KEY requests of one key
// and MAX_HELD of the whole process are held at once; past that a refusal is answered at once, as
// without a hold. Like the leased chunks, all of this is per process.
import type { CoreError } from "../core/errors.ts";

export type HoldOptions = { refusalHoldMs: number; heldPerKey: number };

/** Held requests of all keys at once in one process: each is its request, context and timer, 3–7 KB of heap measured. */
const MAX_HELD = 5_000;
/** Keys remembered with their last Retry-After; past this, those with nothing held are forgotten. */
const MAX_TRACKED = 100_000;

type Told = {
  /** performance.now() until which the key's last 429 told it to stay away. */
  until: number;
  /** Its requests held right now. */
  held: number;
};

export type RefusalAnswers = {
  retryAfter(waitMs: number): number;
  refusal(retryAfter: number): CoreError;
};

export function makeRefusalHold(o: HoldOptions, answers: RefusalAnswers, now: () => number = () => performance.now()) {
  const told = new Map<string, Told>();
  let held = 0;

  /** The 429 sent now to a request that must wait `waitMs`; remembers the Retry-After it gives. */
  function tell(keyId: string, key: Told | undefined, t: number, waitMs: number): CoreError {
    const retryAfter = answers.retryAfter(waitMs);
    const until = t + retryAfter * 1000;
    if (key) key.until = Math.max(key.until, until);
    else {
      if (told.size >= MAX_TRACKED) for (const [id, entry] of told) if (entry.held === 0) told.delete(id);
      told.set(keyId, { until, held: 0 });
    }
    return answers.refusal(retryAfter);
  }

  return {
    /** Refuses a request of `keyId` that must wait `waitMs`: throws at once, or rejects after the hold. */
    refuse(keyId: string, waitMs: number): Promise<never> {
      const t = now();
      const key = told.get(keyId);
      const early = key !== undefined && t < key.until;
      if (o.refusalHoldMs <= 0 || !early || key.held >= o.heldPerKey || held >= MAX_HELD) throw tell(keyId, key, t, waitMs);
      // A random part of the hold (half to all of it): connections released together would
      // otherwise come back together, and a flood would arrive in waves that others queue behind.
      const holdMs = Math.min(o.refusalHoldMs, key.until - t) * (0.5 + Math.random() / 2);
      key.held++;
      held++;
      return new Promise<never>((_, reject) => {
        setTimeout(() => {
          key.held--;
          held--;
          const sent = now();
          reject(tell(keyId, key, sent, waitMs - (sent - t)));
        }, holdMs);
      });
    },
    /** For tests and metrics: requests held right now, of one key or of all. */
    held(keyId?: string): number {
      return keyId === undefined ? held : (told.get(keyId)?.held ?? 0);
    },
  };
}
