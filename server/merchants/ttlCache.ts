/** Entries remembered at most; the oldest goes first when full. */
const MAX_ENTRIES = 10_000;

/**
 * Values read from the store and remembered for `ttlMs` per key (an entity's settings, a credential's access), so a
 * busy merchant costs one read per key and period instead of one per request. `ttlMs` 0 remembers nothing.
 */
export interface TtlCache<V> {
  get(key: string, load: (key: string) => Promise<V>): Promise<V>;
  forget(key: string): void;
}

export function createTtlCache<V>(ttlMs: number, now: () => Date): TtlCache<V> {
  const entries = new Map<string, { readonly value: V; readonly expiresAt: number }>();
  return {
    async get(key, load) {
      const time = now().getTime();
      const cached = entries.get(key);
      if (cached && cached.expiresAt > time) return cached.value;
      const value = await load(key);
      entries.delete(key);
      if (ttlMs > 0) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
        entries.set(key, { value, expiresAt: time + ttlMs });
      }
      return value;
    },
    forget(key) {
      entries.delete(key);
    },
  };
}
