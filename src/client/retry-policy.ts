import pRetry from 'p-retry';
import { forLibrary, type StopSignal } from '../linked-signals.js';
import { abortableSleep } from './abortable-sleep.js';
import {
  AmbiguousWriteError,
  HttpStatusError,
  NetworkError,
  type RequestTarget,
  TmsError,
} from './client-errors.js';
import type { ResolvedClientOptions } from './client-options.js';

/**
 * THE retry policy of the client (docs/api.md, Errors), per HTTP request:
 *
 * | failure                                         | repeatable request (GET, PUT, PATCH, DELETE, login) | create (POST)            |
 * |-------------------------------------------------|-----------------------------------------------------|--------------------------|
 * | 429                                             | retried after Retry-After or back-off               | retried (not processed)  |
 * | 5xx                                             | retried with back-off                               | AmbiguousWriteError      |
 * | network failure before the request left          | retried                                             | retried                  |
 * | (refused, DNS, connect timeout)                 |                                                     |                          |
 * | reset, truncated body, headers or body timeout  | retried                                             | AmbiguousWriteError      |
 * | any other 4xx, invalid response, too large      | never retried                                       | never retried            |
 *
 * Back-off: full jitter, retry n waits random() * min(maxDelayMs, minDelayMs * 2^(n-1)); a
 * Retry-After (seconds or HTTP date) replaces it. How long a request keeps trying is decided by the
 * origin's health, not by a count: while other requests to the origin succeed it goes on, up to
 * its ceiling `maxTotalMs` (when the next wait would pass it the last error is thrown at once);
 * once nothing has succeeded for the patience time the breaker opens (origin-health.ts) and the
 * next send fails with BreakerOpenError, never retried. `attempts` (default unlimited) caps the
 * sends. Every wait ends with the AbortSignal. A 401 is not retried here: the auth layer re-logs
 * in once (request-core.ts). How the layers combine: docs/retries.md.
 */
export interface RetryContext {
  readonly target: RequestTarget;
  /** Repeating the request cannot duplicate anything (reads, PUT, PATCH, DELETE, login). */
  readonly idempotent: boolean;
  readonly signal: StopSignal | undefined;
}

type PolicyOptions = Pick<ResolvedClientOptions, 'retry' | 'random' | 'logger' | 'origin' | 'ceilingSetting'>;

/** Runs `send` under the policy; the error thrown carries the number of sends in `attempts`. */
export async function withRetry<T>(
  send: (attempt: number) => Promise<T>,
  context: RetryContext,
  options: PolicyOptions,
): Promise<T> {
  const started = performance.now();
  let attempts = 0;
  try {
    return await pRetry(
      async (attempt) => {
        attempts = attempt;
        try {
          return await send(attempt);
        } catch (error) {
          throw context.idempotent ? error : guardCreate(error, context.target);
        }
      },
      // Every option p-retry defaults is given: it copies the object and fills in what is missing,
      // and on Node 20 a property added to a copy makes a new hidden class each call (four a
      // request, garbage in the old generation: docs/performance-history.md, "Hidden classes").
      {
        retries: options.retry.attempts - 1,
        factor: 2,
        // Waits happen in shouldRetry (jitter and Retry-After); p-retry's own delay stays zero.
        minTimeout: 0,
        maxTimeout: 0,
        maxRetryTime: options.retry.maxTotalMs,
        randomize: false,
        onFailedAttempt: noFailedAttemptHook,
        shouldRetry: ({ error, attemptNumber }) =>
          waitBeforeRetry(error, attemptNumber, started, context, options),
        shouldConsumeRetry: alwaysConsumeRetry,
        signal: forLibrary(context.signal),
      },
    );
  } catch (error) {
    if (error instanceof TmsError) {
      error.attempts = attempts;
      error.origin = options.origin;
      if (error.retriedInRequest && attempts < options.retry.attempts)
        error.gaveUp = {
          afterMs: performance.now() - started,
          ceilingMs: options.retry.maxTotalMs,
          setting: options.ceilingSetting,
        };
    }
    throw error;
  }
}

const noFailedAttemptHook = () => undefined;
const alwaysConsumeRetry = () => true;

async function waitBeforeRetry(
  error: Error,
  attemptNumber: number,
  started: number,
  context: RetryContext,
  options: PolicyOptions,
): Promise<boolean> {
  if (!(error instanceof TmsError) || !error.retriedInRequest) return false;
  const delayMs = retryDelayMs(error, attemptNumber, options);
  if (performance.now() - started + delayMs >= options.retry.maxTotalMs) return false;
  options.logger.warn(
    {
      ...context.target,
      attempt: attemptNumber,
      delayMs: Math.round(delayMs),
      code: error.code,
      status: error.status,
    },
    'TMS request failed, retrying',
  );
  await abortableSleep(delayMs, context.signal);
  return true;
}

/** The wait before retry number `retry` (1-based): the server's Retry-After, else full jitter. */
export function retryDelayMs(
  error: TmsError,
  retry: number,
  options: Pick<ResolvedClientOptions, 'retry' | 'random'>,
): number {
  if (error instanceof HttpStatusError && error.retryAfterMs !== undefined) return error.retryAfterMs;
  const ceiling = Math.min(options.retry.maxDelayMs, options.retry.minDelayMs * 2 ** (retry - 1));
  return options.random() * ceiling;
}

/** A create that may have reached the server must not be repeated: the caller reconciles. */
function guardCreate(error: unknown, target: RequestTarget): unknown {
  const reached =
    (error instanceof HttpStatusError && error.status >= 500) ||
    (error instanceof NetworkError && error.mayHaveReachedServer);
  if (!reached) return error;
  const what = error instanceof HttpStatusError ? `status ${error.status}` : error.message;
  return new AmbiguousWriteError(
    `the create may have been applied (${what}); it was not repeated, read the state back before retrying`,
    { target, status: error.status, body: error.body, cause: error },
  );
}

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
