import { describe, expect, it } from 'vitest';
import { createBoundedCache } from '../../src/sim/tables/bounded-cache.js';

describe('the simulator JSON cache', () => {
  it('keeps the newest entries up to its capacity, evicting the oldest first', () => {
    const cache = createBoundedCache<number, string>(3);
    for (let key = 1; key <= 5; key++) cache.set(key, `v${key}`);
    expect([1, 2, 3, 4, 5].map((key) => cache.get(key))).toEqual([undefined, undefined, 'v3', 'v4', 'v5']);
  });

  it('replaces a value without taking a new slot, and forgets a deleted key', () => {
    const cache = createBoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    cache.set('b', 3);
    expect(cache.get('a')).toBe(2);
    cache.delete('b');
    expect(cache.get('b')).toBeUndefined();
  });

  it('caches nothing at capacity 0', () => {
    const cache = createBoundedCache<string, number>(0);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
  });
});
