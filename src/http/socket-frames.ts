// What a client may send over one WebSocket: every frame (an ack or anything else) draws on the
// key's request rate limit like a request, and on the connection's own budget of frames per second
// and frames in progress. Past any of them the connection is closed with 1008 (policy): a flood
// costs its sender the connection, never the event loop or another key's requests.
import type { Config } from "../config.ts";

export type FrameVerdict = { admitted: true } | { admitted: false; reason: string };

export type FrameGuard = {
  /** Called as a frame arrives, before any work: whether this connection may have it handled. */
  admit(): FrameVerdict;
  /** Called when an admitted frame's handling ends. */
  done(): void;
};

export function makeFrameGuard(o: Config["eventSocket"], now: () => number = () => performance.now()): FrameGuard {
  let tokens = o.framesPerSecond;
  let at = now();
  let pending = 0;
  return {
    admit() {
      const t = now();
      tokens = Math.min(o.framesPerSecond, tokens + ((t - at) / 1000) * o.framesPerSecond);
      at = t;
      if (tokens < 1) return { admitted: false, reason: "too many frames" };
      if (pending >= o.maxPendingFrames) return { admitted: false, reason: "too many frames in progress" };
      tokens -= 1;
      pending++;
      return { admitted: true };
    },
    done() {
      pending = Math.max(0, pending - 1);
    },
  };
}
