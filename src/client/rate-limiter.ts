import { abortableSleep } from './abortable-sleep.js';

/** Spaces sends to at most `requestsPerSecond`; `take` resolves when the caller may send. */
export interface RateLimiter {
  take(signal?: AbortSignal): Promise<void>;
}

/**
 * A token bucket of capacity one (GCRA): each send reserves the next free slot, so concurrent
 * callers queue fairly without a timer per waiter. An aborted wait gives its slot back.
 */
export function createRateLimiter(
  requestsPerSecond: number,
  now: () => number = performance.now.bind(performance),
): RateLimiter {
  if (requestsPerSecond <= 0) return { take: async (signal) => signal?.throwIfAborted() };
  const intervalMs = 1000 / requestsPerSecond;
  let nextFreeAt = 0;
  return {
    async take(signal) {
      signal?.throwIfAborted();
      const slot = Math.max(nextFreeAt, now());
      nextFreeAt = slot + intervalMs;
      try {
        await abortableSleep(slot - now(), signal);
      } catch (error) {
        nextFreeAt -= intervalMs;
        throw error;
      }
    },
  };
}
