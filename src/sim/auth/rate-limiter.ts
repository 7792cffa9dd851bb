import { SimHttpError } from '../sim-http-error.js';

/** A token bucket per key (the tenant): `perSecond` requests a second, bursts up to one second's worth. */
export interface RateLimiter {
  /** Takes one request from the key's bucket; 429 with Retry-After when it is empty. */
  take(key: string): void;
}

export function createRateLimiter(perSecond: number, now: () => number): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const capacity = Math.max(perSecond, 1);
  return {
    take(key) {
      if (perSecond <= 0) return;
      const at = now();
      const bucket = buckets.get(key) ?? { tokens: capacity, at };
      bucket.tokens = Math.min(capacity, bucket.tokens + ((at - bucket.at) / 1000) * perSecond);
      bucket.at = at;
      buckets.set(key, bucket);
      if (bucket.tokens < 1) {
        const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
        throw new SimHttpError(429, 'rate_limited', `more than ${perSecond} requests a second`, undefined, {
          'retry-after': String(seconds),
        });
      }
      bucket.tokens -= 1;
    },
  };
}
