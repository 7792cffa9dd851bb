import { redactSecrets } from './secrets/secret-registry.js';

/**
 * What repeating the failed work would do, as the error that ended it decides (docs/retries.md):
 * - `transient`: the same work may succeed later (a reset connection, a 5xx, a busy database):
 *   retry with back-off;
 * - `permanent`: it fails the same way until someone changes the configuration, the data or the
 *   TMS (a refused token, a malformed answer, a record without a key): fail now, the next
 *   scheduled run tries again;
 * - `wait`: the TMS asked to come back later (429): wait `afterMs` from when it answered
 *   (undefined: the configured pause), then retry, costing no attempt;
 * - `superseded`: another run did the work (the state moved under this one): nothing to repeat.
 */
export type RetryDecision =
  | { readonly kind: 'transient' }
  | { readonly kind: 'permanent' }
  | { readonly kind: 'wait'; readonly afterMs: number | undefined }
  | { readonly kind: 'superseded' };

export const transient: RetryDecision = Object.freeze({ kind: 'transient' });
export const permanent: RetryDecision = Object.freeze({ kind: 'permanent' });
export const superseded: RetryDecision = Object.freeze({ kind: 'superseded' });

/**
 * Base of every error tms-sync throws on purpose: a stable `code` to branch on (messages change)
 * and the retry decision, so the one place that maps failures to BullMQ (jobs/job-outcome.ts)
 * keeps no lists of names. In the style of undici's error catalogue and BullMQ's
 * UnrecoverableError.
 */
export abstract class TmsSyncError extends Error {
  abstract readonly code: string;
  abstract readonly retry: RetryDecision;

  constructor(message: string, options?: ErrorOptions) {
    // The message may quote the TMS (an answer that repeats the request body): no secret stays in it.
    super(redactSecrets(message), options);
    this.name = new.target.name;
  }
}

/** The decision for any error: its own, or transient for one of no kind of ours (a driver's, a bug's). */
export function retryDecisionOf(error: unknown): RetryDecision {
  return error instanceof TmsSyncError ? error.retry : transient;
}

/**
 * One line for `sync_runs.error`, summaries and the child queue: the error's own one-line form,
 * with every secret of the process blanked (an error of a driver's or a bug's is not ours to trust).
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const text = String(error);
    return redactSecrets(text.startsWith(error.name) ? text : `${error.name}: ${error.message}`);
  }
  return redactSecrets(String(error));
}
