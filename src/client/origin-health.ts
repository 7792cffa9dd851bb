import { BreakerOpenError, type TmsError } from './client-errors.js';

/** Where the origin's circuit breaker stands. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** What the breaker knows, for status, progress and metrics. */
export interface OriginHealthView {
  readonly state: BreakerState;
  /** Since when every request has failed (epoch ms); undefined while requests succeed. */
  readonly failingSinceMs: number | undefined;
  /** The last transient failure, one line (no query, no token). */
  readonly lastFailure: string | undefined;
}

/**
 * The circuit breaker of one TMS origin: it decides how long a request keeps being retried. While
 * the origin answers anything but a transient failure (2xx, or a 4xx other than 429) to some
 * request, every failing request goes on being retried; once nothing has succeeded for
 * `patienceMs`, the breaker opens and every request fails at once with BreakerOpenError, except
 * one probe every `probeEveryMs`, whose success closes it again.
 */
export interface OriginHealth {
  /** Throws BreakerOpenError while the breaker is open and it is not time for a probe. */
  admit(): void;
  /** The origin answered (any status but 429 and 5xx). */
  answered(): void;
  /** A transient failure: 429, 5xx, reset, timeout. */
  failed(error: TmsError): void;
  view(): OriginHealthView;
}

export interface OriginHealthOptions {
  readonly origin: string;
  readonly patienceMs: number;
  readonly probeEveryMs: number;
  /** The setting a user changes to wait longer, named in the error. */
  readonly patienceSetting: string;
  readonly now: () => number;
}

export function createOriginHealth(options: OriginHealthOptions): OriginHealth {
  const { probeEveryMs } = options;
  let failingSinceMs: number | undefined;
  let lastFailure: string | undefined;
  let open = false;
  let nextProbeAtMs = 0;

  const openError = () =>
    new BreakerOpenError(
      `no request to ${options.origin} has succeeded for ${Math.round((options.now() - (failingSinceMs ?? options.now())) / 1000)} s ` +
        `(last: ${lastFailure ?? 'unknown'}); requests stop until it answers again. ` +
        `Set ${options.patienceSetting} to wait longer.`,
      { origin: options.origin, lastFailure },
    );

  return {
    admit() {
      if (!open) return;
      const now = options.now();
      if (now < nextProbeAtMs) throw openError();
      nextProbeAtMs = now + probeEveryMs;
    },
    answered() {
      failingSinceMs = undefined;
      open = false;
    },
    failed(error) {
      const now = options.now();
      lastFailure = String(error);
      failingSinceMs ??= now;
      if (!open && now - failingSinceMs >= options.patienceMs) {
        open = true;
        nextProbeAtMs = now + probeEveryMs;
      }
    },
    view: () => ({
      state: open ? (options.now() >= nextProbeAtMs ? 'half-open' : 'open') : 'closed',
      failingSinceMs,
      lastFailure,
    }),
  };
}
