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
 * UnrecoverableError. Each error declares its code and decision as fields
 * (`readonly code = 'STORE_REFUSED'`), and answers what else a caller must decide by the getters
 * below, which an error overrides where it differs: no caller keeps a list of classes.
 */
export abstract class TmsSyncError extends Error {
  abstract readonly code: string;
  abstract readonly retry: RetryDecision;

  /**
   * The command could not start: its usage or its configuration (a setting, the store, Redis)
   * is at fault, and the CLI exits 2 instead of 1 (src/cli/cli-failure.ts).
   */
  get preventsStart(): boolean {
    return false;
  }

  /**
   * The failure concerns the one request that met it (one parent's children, one batch of ids):
   * the run goes on with the others (sync/strategies/child-strategy.ts, fetch-snapshot.ts).
   * Not so for credentials, an unreachable TMS, a TMS that asked everyone to wait, the store.
   */
  get concernsOneRequest(): boolean {
    return false;
  }

  /**
   * What the cursor of an interrupted cycle led to was refused (a 400, a loop, broken paging, an
   * answer the engine refused): resuming from that cursor would meet the same refusal, so the
   * checkpoint is dropped (sync/strategies/sequence-strategy.ts).
   */
  get refusesCursor(): boolean {
    return false;
  }

  constructor(message: string, options?: ErrorOptions) {
    // The message may quote the TMS (an answer that repeats the request body): no secret stays in it.
    super(redactSecrets(message), options);
    this.name = new.target.name;
  }
}

/** What an error decides of itself (above); false for an error of no kind of ours (a driver's, a bug's, an abort). */
export function errorSays(
  error: unknown,
  what: 'preventsStart' | 'concernsOneRequest' | 'refusesCursor',
): boolean {
  return error instanceof TmsSyncError && error[what];
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
