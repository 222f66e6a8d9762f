/** Entries remembered at most by default; the oldest goes first when full. */
const MAX_ENTRIES = 10_000;

/**
 * Reads from the store remembered for `ttlMs` per key (an access token's entities, an entity's settings), so a busy
 * merchant costs one read per key and period instead of one per request. Requests that need a key at once share one
 * read. `ttlMs` 0 remembers nothing (every get reads). A change made through this process applies here at once
 * (`forget`); other instances see it within `ttlMs` — what every cache of this kind documents for its setting.
 */
export interface ReadCache<V> {
  /** The remembered value, or `load`'s (remembered unless `keep` says not to: an unknown token is read again). */
  get(key: string, load: (key: string) => Promise<V>, keep?: (value: V) => boolean): Promise<V>;
  /** The value remembered now, if any (`{ value }`, so a remembered undefined is told from none). */
  peek(key: string): { readonly value: V } | undefined;
  forget(key: string): void;
}

export function createReadCache<V>(ttlMs: number, now: () => Date, maxEntries: number = MAX_ENTRIES): ReadCache<V> {
  const entries = new Map<string, { readonly value: V; readonly expiresAt: number }>();
  const reading = new Map<string, Promise<V>>();
  const peek = (key: string) => {
    const cached = entries.get(key);
    return cached && cached.expiresAt > now().getTime() ? { value: cached.value } : undefined;
  };
  return {
    peek,
    get(key, load, keep = () => true) {
      const cached = peek(key);
      if (cached) return Promise.resolve(cached.value);
      const under = reading.get(key);
      if (under) return under;
      const time = now().getTime();
      const read = load(key)
        .then((value) => {
          entries.delete(key);
          if (ttlMs > 0 && keep(value)) {
            if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
            entries.set(key, { value, expiresAt: time + ttlMs });
          }
          return value;
        })
        .finally(() => reading.delete(key));
      reading.set(key, read);
      return read;
    },
    forget(key) {
      entries.delete(key);
    },
  };
}
