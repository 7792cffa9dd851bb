import type { StopSignal } from '../linked-signals.js';
import { abortableSleep } from './abortable-sleep.js';
import type { LearnedAllowance } from './learned-allowance.js';

/**
 * The TMS's allowance, taken from before every send. Whoever shares one budget shares the allowance:
 * the one-shot `sync` has one in its process (below), the worker fleet one in Redis
 * (jobs/redis-request-budget.ts). A pause (a 429's Retry-After) is the one mechanism that holds
 * everyone off: every send waits it out, and the worker delays jobs while it lasts.
 */
export interface RequestBudget {
  /**
   * Takes one send: resolves with 0 when it may go (within the rate, after any pause). When a pause
   * would hold it longer than `maxWaitMs` (default: as long as the pause lasts), resolves at once
   * with what remains of the pause, nothing taken.
   */
  take(signal?: StopSignal, maxWaitMs?: number): Promise<number>;
  /** Every sender under this budget holds off for `ms` from now (a 429's Retry-After); a longer pause in force stays. */
  pause(ms: number): Promise<void>;
  /** What remains of the pause in force, in ms; 0 when none. */
  pausedForMs(): Promise<number>;
}

/**
 * An in-process budget: a token bucket of capacity one (GCRA) spaces sends to `requestsPerSecond`
 * (0 = no rate, or the rate `learned` has found), each send reserving the next free slot so
 * concurrent callers queue fairly without a timer per waiter; an aborted wait gives its slot back.
 * A pause holds every send until it ends.
 */
export function createLocalBudget(
  requestsPerSecond: number,
  now: () => number = performance.now.bind(performance),
  learned?: LearnedAllowance,
): RequestBudget {
  const interval = () => {
    const perSecond = requestsPerSecond > 0 ? requestsPerSecond : (learned?.rate() ?? 0);
    return perSecond > 0 ? 1000 / perSecond : 0;
  };
  let nextFreeAt = 0;
  const pause = createLocalPause(now);
  return {
    async take(signal, maxWaitMs = Number.POSITIVE_INFINITY) {
      signal?.throwIfAborted();
      const paused = pause.remainingMs();
      if (paused > maxWaitMs) return paused;
      if (paused > 0) await abortableSleep(paused, signal);
      const intervalMs = interval();
      if (intervalMs === 0) return 0;
      const slot = Math.max(nextFreeAt, now());
      nextFreeAt = slot + intervalMs;
      try {
        await abortableSleep(slot - now(), signal);
      } catch (error) {
        nextFreeAt -= intervalMs;
        throw error;
      }
      return 0;
    },
    pause: async (ms) => pause.extend(ms),
    pausedForMs: async () => pause.remainingMs(),
  };
}

/** A pause kept in this process: the latest end asked for wins. */
export function createLocalPause(now: () => number = performance.now.bind(performance)) {
  let pausedUntil = 0;
  return {
    extend(ms: number): void {
      pausedUntil = Math.max(pausedUntil, now() + ms);
    },
    remainingMs: (): number => Math.max(0, pausedUntil - now()),
  };
}
