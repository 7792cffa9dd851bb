import { AuthError, BreakerOpenError, InvalidArgumentError, TmsError } from '../../client/index.js';
import { RecordKeyError, SyncProtocolError } from '../sync-errors.js';

/**
 * Whether an error concerns one parent (or one id batch) alone, so the run goes on with the
 * others: its request kept failing after the client's patience, was refused, or answered what the
 * store cannot hold. Not: credentials (every request would fail the same), an unreachable TMS
 * (the breaker is open), a TMS that asked everyone to wait (a 429 past the ceiling, a pause), a
 * bug, a store failure, an abort.
 */
export function isParentFault(error: unknown): boolean {
  if (error instanceof RecordKeyError || error instanceof SyncProtocolError) return true;
  return (
    error instanceof TmsError &&
    error.retry.kind !== 'wait' &&
    !(
      error instanceof AuthError ||
      error instanceof BreakerOpenError ||
      error instanceof InvalidArgumentError
    )
  );
}
