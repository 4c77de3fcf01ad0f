// A key whose event WebSocket was just closed for flooding (1008: too many frames, too many in
// progress, or its rate limit run dry) may not open another for a few seconds: the upgrade is
// refused with 429 and Retry-After before any work. Without it a flooding client connects again
// at once, over and over, and every upgrade costs authentication, a stream slot and the feed's
// first reads; that reconnect loop, more than the frames themselves, is what slowed other keys.
// Counted in each API process, like the stream slots.
import { errors } from "../core/errors.ts";
import type { Services } from "../core/services.ts";

/** How long a key waits after a flood closed one of its sockets (also its Retry-After). */
export const SOCKET_COOLDOWN_S = 5;
const MAX_TRACKED_KEYS = 10_000;

export type SocketCooldown = {
  /** This key's socket was closed for flooding: refuse its upgrades for a while. */
  penalize(keyId: string): void;
  /** Throws the 429 while the key waits. */
  check(keyId: string): void;
};

export function makeSocketCooldown(seconds: number, now: () => number = () => performance.now()): SocketCooldown {
  const until = new Map<string, number>();
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
      throw errors.socketCooldown(Math.ceil(left / 1000));
    },
  };
}

const perService = new WeakMap<Services, SocketCooldown>();

export function socketCooldownFor(svc: Services): SocketCooldown {
  let cooldown = perService.get(svc);
  if (!cooldown) perService.set(svc, (cooldown = makeSocketCooldown(SOCKET_COOLDOWN_S)));
  return cooldown;
}
