import { createBoundedCache } from '../tables/bounded-cache.js';
import type { SortOrder } from './listing-query.js';
import type { ListingFilter, ListingSource } from './listing-source.js';

interface CachedOrder {
  readonly version: number;
  readonly positions: Float64Array;
}

/**
 * Custom sorts (`sort=-id`, `sort=sequence`, ...) page through a sorted copy of the matching
 * positions, rebuilt when the listing changed; a page starts after the cursor's key, so changes
 * between pages never repeat or skip an unchanged entry.
 */
export interface SortedOrders {
  /** Index in the order of the first entry after the key (position, sequence); 0 without a key. */
  page(
    source: ListingSource,
    filter: ListingFilter,
    order: SortOrder,
    after?: { position: number; sequence: number },
  ): { positions: Float64Array; start: number };
}

export function createSortedOrders(): SortedOrders {
  const cache = createBoundedCache<string, CachedOrder>(32);
  return {
    page(source, filter, order, after) {
      const cacheKey = `${source.key}|${filter.status ?? ''}|${order.by}|${order.descending}`;
      let cached = cache.get(cacheKey);
      if (!cached || cached.version !== source.version()) {
        cached = { version: source.version(), positions: buildOrder(source, filter, order) };
        cache.set(cacheKey, cached);
      }
      const compare = comparator(source, order);
      const start = after ? firstAfter(cached.positions, (position) => compare(position, after)) : 0;
      return { positions: cached.positions, start };
    },
  };
}

function buildOrder(source: ListingSource, filter: ListingFilter, order: SortOrder): Float64Array {
  const found: number[] = [];
  source.scan(-1, filter, (position) => {
    found.push(position);
    return true;
  });
  const positions = Float64Array.from(found);
  const compare = comparator(source, order);
  return positions.sort((a, b) => compare(a, { position: b, sequence: source.sequence(b) }));
}

type Compare = (position: number, key: { position: number; sequence: number }) => number;

function comparator(source: ListingSource, order: SortOrder): Compare {
  const sign = order.descending ? -1 : 1;
  if (order.by === 'id') return (position, key) => sign * (position - key.position);
  return (position, key) => sign * (source.sequence(position) - key.sequence || position - key.position);
}

/** Binary search: the first index whose entry sorts after the key. */
function firstAfter(positions: Float64Array, compareToKey: (position: number) => number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareToKey(positions[middle]!) > 0) high = middle;
    else low = middle + 1;
  }
  return low;
}
