import type { StopSignal } from '../linked-signals.js';
/** How a send ended, for the limit: `drop` = the TMS pushed back (429, 5xx, reset, timeout). */
export type SendOutcome = 'ok' | 'drop';

/** Requests in flight to one origin, bounded by a limit that adapts to how the origin answers. */
export interface ConcurrencyLimit {
  /**
   * Waits for a free slot; the returned function gives it back with the send's outcome, and
   * answers whether a waiting send took it.
   */
  acquire(signal?: StopSignal): Promise<(outcome: SendOutcome) => boolean>;
  view(): { readonly limit: number; readonly inFlight: number; readonly waiting: number };
}

export interface ConcurrencyLimitOptions {
  /** @default min(4, max) */
  readonly initial?: number;
  readonly max: number;
  /** Share kept on a drop. @default 0.9 */
  readonly backoff?: number;
}

/**
 * AIMD, as in Netflix's concurrency-limits: a send that ends well while the limit was in use
 * (in flight >= half of it) raises the limit by one, up to `max`; a drop multiplies it by `backoff`.
 * Drops of sends that started before the last decrease do not decrease it again: a burst of
 * failures answered together is one signal, not twenty.
 */
export function createConcurrencyLimit(options: ConcurrencyLimitOptions): ConcurrencyLimit {
  const backoff = options.backoff ?? 0.9;
  let limit = Math.max(1, Math.min(options.initial ?? 4, options.max));
  let inFlight = 0;
  let decreases = 0;
  const waiters: Array<() => void> = [];

  /** Hands free slots to waiting sends; answers whether one took a slot. */
  const wake = () => {
    let woken = false;
    while (inFlight < Math.floor(limit) && waiters.length > 0) {
      inFlight += 1;
      waiters.shift()!();
      woken = true;
    }
    return woken;
  };

  const slot = () => {
    const startedAfter = decreases;
    const busy = inFlight;
    let released = false;
    return (outcome: SendOutcome) => {
      if (released) return false;
      released = true;
      inFlight -= 1;
      if (outcome === 'drop') {
        if (startedAfter === decreases) {
          limit = Math.max(1, limit * backoff);
          decreases += 1;
        }
      } else if (busy * 2 >= limit) {
        limit = Math.min(options.max, limit + 1);
      }
      return wake();
    };
  };

  return {
    async acquire(signal) {
      signal?.throwIfAborted();
      if (inFlight < Math.floor(limit) && waiters.length === 0) {
        inFlight += 1;
        return slot();
      }
      await new Promise<void>((resolve, reject) => {
        const granted = () => {
          signal?.removeEventListener('abort', aborted);
          resolve();
        };
        const aborted = () => {
          const index = waiters.indexOf(granted);
          if (index >= 0) waiters.splice(index, 1);
          reject(signal!.reason);
        };
        waiters.push(granted);
        signal?.addEventListener('abort', aborted, { once: true });
      });
      return slot();
    },
    view: () => ({ limit: Math.floor(limit), inFlight, waiting: waiters.length }),
  };
}
