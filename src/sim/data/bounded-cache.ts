/** A map with a size cap that evicts the oldest entry first; capacity 0 caches nothing. */
export interface BoundedCache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
}

export function createBoundedCache<K, V>(capacity: number): BoundedCache<K, V> {
  const entries = new Map<K, V>();
  return {
    get: (key) => entries.get(key),
    set(key, value) {
      if (capacity === 0) return;
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > capacity) entries.delete(entries.keys().next().value as K);
    },
    delete: (key) => {
      entries.delete(key);
    },
  };
}
