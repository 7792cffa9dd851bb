import { abortableSleep } from './abortable-sleep.js';

/**
 * The TMS's allowance, taken from before every send. Whoever shares one budget shares the allowance:
 * the one-shot `sync` has one in its process (below), the worker fleet one in Redis
 * (jobs/redis-request-budget.ts).
 */
export interface RequestBudget {
  /** Resolves when one request may be sent: within the rate, after any pause. */
  take(signal?: AbortSignal): Promise<void>;
  /** Every sender under this budget holds off for `ms` (a 429's Retry-After). */
  pause(ms: number): Promise<void>;
}

/**
 * An in-process budget: a token bucket of capacity one (GCRA) spaces sends to `requestsPerSecond`
 * (0 = no rate), each send reserving the next free slot so concurrent callers queue fairly without
 * a timer per waiter; an aborted wait gives its slot back. A pause holds every send until it ends.
 */
export function createLocalBudget(
  requestsPerSecond: number,
  now: () => number = performance.now.bind(performance),
): RequestBudget {
  const intervalMs = requestsPerSecond > 0 ? 1000 / requestsPerSecond : 0;
  let nextFreeAt = 0;
  let pausedUntil = 0;
  return {
    async take(signal) {
      signal?.throwIfAborted();
      while (pausedUntil > now()) await abortableSleep(pausedUntil - now(), signal);
      if (intervalMs === 0) return;
      const slot = Math.max(nextFreeAt, now());
      nextFreeAt = slot + intervalMs;
      try {
        await abortableSleep(slot - now(), signal);
      } catch (error) {
        nextFreeAt -= intervalMs;
        throw error;
      }
    },
    async pause(ms) {
      pausedUntil = Math.max(pausedUntil, now() + ms);
    },
  };
}
