/**
 * Serialized answers of the GET routes, dropped whenever any Driver API data changes. Bounded,
 * because `ids` filters make many distinct URLs.
 */
export interface ResponseCache {
  get(key: string): string | undefined;
  set(key: string, body: string): void;
  clear(): void;
}

/** @param maxEntries entries kept before the cache starts over. */
export function createResponseCache(maxEntries = 1000): ResponseCache {
  const bodies = new Map<string, string>();
  return {
    get: (key) => bodies.get(key),
    set(key, body) {
      if (bodies.size >= maxEntries) bodies.clear();
      bodies.set(key, body);
    },
    clear: () => bodies.clear(),
  };
}
