// Open event streams per API key (SSE and WebSocket together), counted in this process: past
// EVENT_STREAMS_PER_KEY a new one is refused with 429 and a Retry-After, so one key cannot hold
// the memory and the file descriptors that every open stream costs. With several API copies each
// counts its own (a key may hold that many per copy).
import { errors } from "../errors.ts";
import type { Services } from "../services.ts";

/** How long a refused client waits before it tries again: long enough for a stream to end. */
export const STREAM_RETRY_AFTER_S = 5;

export type StreamSlots = {
  /** A slot for this key, released by calling the returned function (once; later calls do nothing). Throws 429 when none is free. */
  take(keyId: string): () => void;
  open(keyId: string): number;
};

export function makeStreamSlots(perKey: number): StreamSlots {
  const open = new Map<string, number>();
  return {
    take(keyId) {
      const count = open.get(keyId) ?? 0;
      if (count >= perKey) {
        throw errors.tooManyStreams(perKey, STREAM_RETRY_AFTER_S);
      }
      open.set(keyId, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (open.get(keyId) ?? 1) - 1;
        if (left <= 0) open.delete(keyId);
        else open.set(keyId, left);
      };
    },
    open: (keyId) => open.get(keyId) ?? 0,
  };
}

const perService = new WeakMap<Services, StreamSlots>();

export function streamSlotsFor(svc: Services): StreamSlots {
  let slots = perService.get(svc);
  if (!slots) perService.set(svc, (slots = makeStreamSlots(svc.config.events.streamsPerKey)));
  return slots;
}
