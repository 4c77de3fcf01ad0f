// A key whose event WebSocket was just closed for flooding (1008: too many frames, too many in
// progress, or its rate limit run dry) may not open another for a few seconds: the upgrade is
// refused with 429 and Retry-After before any work. Without it a flooding client connects again
// at once, over and over, and every upgrade costs authentication, a stream slot and the feed's
// first reads; that reconnect loop, more than the frames themselves, is what slowed other keys.
// A client that keeps trying during the wait has its next 429s held like the rate limit's
// (RATE_LIMIT_REFUSAL_HOLD_MS, rate-limit-hold.ts), so a reconnect loop asks a few times a second
// per connection instead of thousands. Counted in each API process, like the stream slots.
import { errors } from "../core/errors.ts";
import type { Services } from "../core/services.ts";
import { type HoldOptions, makeRefusalHold } from "../request/rate-limit-hold.ts";

/** How long a key waits after a flood closed one of its sockets (also its Retry-After). */
export const SOCKET_COOLDOWN_S = 5;
const MAX_TRACKED_KEYS = 10_000;

export type SocketCooldown = {
  /** This key's socket was closed for flooding: refuse its upgrades for a while. */
  penalize(keyId: string): void;
  /** While the key waits: throws the 429, or rejects with it after a hold when the key keeps coming back early. */
  check(keyId: string): void | Promise<never>;
};

export function makeSocketCooldown(seconds: number, hold: HoldOptions, now: () => number = () => performance.now()): SocketCooldown {
  const until = new Map<string, number>();
  const refusals = makeRefusalHold(
    hold,
    {
      retryAfter: (waitMs) => Math.max(1, Math.ceil(waitMs / 1000)),
      refusal: (retryAfter) => errors.socketCooldown(retryAfter),
    },
    now,
  );
  return {
    penalize(keyId) {
      if (until.size >= MAX_TRACKED_KEYS) for (const [key, at] of until) if (at <= now()) until.delete(key);
      until.set(keyId, now() + seconds * 1000);
    },
    check(keyId) {
      const at = until.get(keyId);
      if (at === undefined) return;
      const left = at - now();
      if (left <= 0) {
        until.delete(keyId);
        return;
      }
      return refusals.refuse(keyId, left);
    },
  };
}

const perService = new WeakMap<Services, SocketCooldown>();

export function socketCooldownFor(svc: Services): SocketCooldown {
  let cooldown = perService.get(svc);
  if (!cooldown) perService.set(svc, (cooldown = makeSocketCooldown(SOCKET_COOLDOWN_S, svc.config.rateLimit)));
  return cooldown;
}
