// In-process half of the API-key cache's invalidation (key-cache.ts): a change made by this process
// (revoking a key, changing an account) empties this process's caches before its response, without
// waiting for its own NOTIFY to come back. A module of its own so keys.ts need not import the cache.
const invalidators = new Set<() => void>();

export function onLocalKeyChange(invalidate: () => void): () => void {
  invalidators.add(invalidate);
  return () => void invalidators.delete(invalidate);
}

export function invalidateKeyCaches(): void {
  for (const invalidate of invalidators) invalidate();
}
