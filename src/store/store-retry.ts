import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import type { Logger } from '../logger.js';
import { StoreRefusedError } from './store-errors.js';

/**
 * What a store verb that lost its connection or met a lock does: try again, a few times, with
 * back-off. Every verb is one transaction, so a failed attempt left nothing behind (PostgreSQL rolls
 * back a transaction whose connection died; SQLite a busy one never began writing). A commit whose
 * answer was lost is retried too: the page upsert is idempotent, and its state transition is a
 * compare-and-set that then fails the run cleanly, to be resumed from the checkpoint.
 */
export interface StoreRetryOptions {
  /** Attempts after the first. @default 5 */
  readonly retries?: number;
  /** First wait; doubled per retry, with jitter (about 3 s in all by default). @default 100 */
  readonly minDelayMs?: number;
  readonly logger?: Logger | undefined;
}

/** PostgreSQL SQLSTATEs of a lost or refused connection, and of a transaction worth repeating. */
const transientStates = /^(08...|57P0[123]|40001|40P01)$/;
const transientCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
]);
const transientMessages = /Connection terminated|not queryable|terminating connection/i;

/**
 * What the database refuses for what a write holds, whoever repeats it: PostgreSQL SQLSTATE class
 * 22 (data exception: invalid input, a value too long, U+0000) and 54 (program limit exceeded);
 * SQLite's too big, datatype mismatch and out of range.
 */
const refusedStates = /^(22...|54...)$/;
const refusedSqliteCodes = /^SQLITE_(TOOBIG|MISMATCH|RANGE)/;
/** Integrity violations (PostgreSQL class 23, SQLite constraints): a race may explain one, so one repeat. */
const integrityStates = /^(23...|SQLITE_CONSTRAINT.*)$/;

/** Whether the database refused the write for what it holds (after any repeat worth making). */
function isRefusedByStore(error: unknown): boolean {
  const code = codeOf(error);
  return (
    code !== undefined &&
    (refusedStates.test(code) || refusedSqliteCodes.test(code) || integrityStates.test(code))
  );
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The error, or the error it wraps (a failed migration carries the driver's error as cause). */
function isTransientStoreError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (transientStates.test(code) || transientCodes.has(code))) return true;
  return transientMessages.test(error.message) || isTransientStoreError(error.cause);
}

/**
 * Runs one store verb under the store's retry. A write the database refuses for what it holds
 * fails as StoreRefusedError (permanent) naming `what` (@default the verb), so no layer above
 * repeats it: an integrity violation after one repeat, any other refusal at once.
 */
export async function withStoreRetry<T>(
  verb: string,
  run: () => Promise<T>,
  options: StoreRetryOptions = {},
  what = verb,
): Promise<T> {
  try {
    return await retried(verb, run, options);
  } catch (error) {
    throw isRefusedByStore(error) ? new StoreRefusedError(what, error) : error;
  }
}

/**
 * The first attempt runs bare; only a failure worth repeating enters p-retry, after the first wait
 * (p-retry's own set-up costs ~9 µs a call, and a run makes several store calls per partition).
 */
async function retried<T>(verb: string, run: () => Promise<T>, options: StoreRetryOptions): Promise<T> {
  const retries = options.retries ?? 5;
  const minTimeout = options.minDelayMs ?? 100;
  const repeatable = (error: unknown, attempt: number) =>
    isTransientStoreError(error) || (attempt === 1 && integrityStates.test(codeOf(error) ?? ''));
  const warn = (error: Error, attempt: number, left: number) => {
    if (left > 0 && isTransientStoreError(error))
      options.logger?.warn({ verb, attempt, error: error.message }, 'store: transient failure, retrying');
  };
  try {
    return await run();
  } catch (error) {
    if (retries === 0 || !repeatable(error, 1)) throw error;
    warn(error as Error, 1, retries);
  }
  await sleep(minTimeout * (1 + Math.random()));
  return pRetry(run, {
    retries: retries - 1,
    minTimeout: minTimeout * 2,
    factor: 2,
    randomize: true,
    shouldRetry: ({ error, attemptNumber }) => repeatable(error, attemptNumber + 1),
    onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => warn(error, attemptNumber + 1, retriesLeft),
  });
}
