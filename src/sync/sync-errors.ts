import { permanent, TmsSyncError, transient } from '../tms-sync-error.js';

/**
 * The server broke a rule of the sync protocol during a cycle (no `maxSequence` with `since`, a
 * `maxSequence` that changed or went backwards, a detail without its items field): the page is
 * refused, nothing of it is committed. Permanent: the same request now gets the same answer; the
 * next scheduled run asks again (docs/retries.md).
 */
export class SyncProtocolError extends TmsSyncError {
  readonly code = 'SYNC_PROTOCOL';
  readonly retry = permanent;
  override get concernsOneRequest(): boolean {
    return true;
  }
  override get refusesCursor(): boolean {
    return true;
  }

  constructor(
    readonly stream: string,
    message: string,
  ) {
    super(`${stream}: ${message}`);
  }
}

/** A stream needs configuration it does not have (e.g. TMS_OPERATORS for per-operator streams). */
export class SyncConfigurationError extends TmsSyncError {
  readonly code = 'SYNC_CONFIGURATION';
  readonly retry = permanent;

  constructor(
    /** The setting that would make the stream runnable. */
    readonly setting: string,
    message: string,
  ) {
    super(message);
  }
}

/** A stream name that is not in the catalogue, or a partition the stream does not have (a usage error: exit code 2). */
export class UnknownStreamError extends TmsSyncError {
  readonly code = 'UNKNOWN_STREAM';
  readonly retry = permanent;
  override get preventsStart(): boolean {
    return true;
  }

  constructor(
    readonly unknown: readonly string[],
    known: readonly string[],
    what: 'stream' | 'partition' = 'stream',
  ) {
    super(`unknown ${what} ${unknown.join(', ')}; known: ${known.join(', ')}`);
  }
}

/**
 * A record without a usable key (no key field, or one that is neither a string nor a safe
 * integer): the store cannot hold it, so its whole page or list fails and nothing of it is
 * committed; the watermark stays. Names where it came from, its position and why.
 */
export class RecordKeyError extends TmsSyncError {
  readonly code = 'RECORD_WITHOUT_KEY';
  readonly retry = permanent;
  override get concernsOneRequest(): boolean {
    return true;
  }

  constructor(
    readonly origin: { readonly stream: string; readonly partition: string; readonly where: string },
    readonly position: number,
    readonly count: number,
    readonly reason: string,
  ) {
    const partition = origin.partition ? `/${origin.partition}` : '';
    super(
      `${origin.stream}${partition}: record ${position} of ${count} in ${origin.where} has no usable key: ${reason}; nothing of it was stored`,
    );
  }
}

/**
 * A run stored everything it could fetch, but some requests kept failing (after the client's
 * patience, and once more at the end of the run): a child stream's parents, which stay queued
 * with their errors for the next run, or a snapshot's id batches, whose scope is then not marked
 * (nothing is deleted on an incomplete list). Transient: the worker retries.
 */
export class LeftBehindError extends TmsSyncError {
  readonly code = 'WORK_LEFT_BEHIND';
  readonly retry = transient;

  constructor(
    readonly stream: string,
    readonly count: number,
    unit: { readonly one: string; readonly many: string; readonly outcome: string },
    first: { readonly what: string; readonly error: string } | undefined,
  ) {
    const example = first ? ` (first: ${first.what}: ${first.error})` : '';
    super(
      `${stream}: ${count} ${count === 1 ? unit.one : unit.many} left, their requests kept failing${example}; ${unit.outcome}`,
    );
  }
}

/**
 * A run reached its bound (`sync.maxRunPages` or `sync.maxRunSeconds`): it stopped after the page
 * in hand, failed. What it committed stays and the next run resumes from the checkpoint. Permanent:
 * a listing that never ends would hold every retry the same way; the next scheduled run goes on.
 */
export class RunBoundError extends TmsSyncError {
  readonly code = 'RUN_BOUND';
  readonly retry = permanent;

  constructor(
    readonly origin: { readonly stream: string; readonly partition: string },
    bound: { readonly what: string; readonly setting: string },
  ) {
    const partition = origin.partition ? `/${origin.partition}` : '';
    super(
      `${origin.stream}${partition}: the run reached its bound of ${bound.what} (${bound.setting}) and stopped; what it committed stays, the next run resumes from its checkpoint`,
    );
  }
}
