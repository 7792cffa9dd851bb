import { permanent, type RetryDecision, superseded, TmsSyncError, transient } from '../tms-sync-error.js';

/** Base of every store error: `code` is stable, so callers branch on it rather than on messages. */
export class StoreError extends TmsSyncError {
  readonly code: string;
  readonly retry: RetryDecision;

  constructor(code: string, message: string, retry: RetryDecision, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.retry = retry;
  }
}

/** The store could not be opened or reached (file not writable, server down, database missing): it may come back. */
export class StoreConnectionError extends StoreError {
  constructor(message: string, cause: unknown) {
    super('STORE_UNREACHABLE', message, transient, { cause });
  }
}

/** A migration failed; the store is left at the last migration that succeeded. */
export class MigrationError extends StoreError {
  constructor(
    readonly migration: string | undefined,
    cause: unknown,
  ) {
    super('MIGRATION_FAILED', `migration ${migration ?? '(setup)'} failed: ${messageOf(cause)}`, transient, {
      cause,
    });
  }
}

/** The catalogue has a stream or column the store cannot represent (a programming error). */
export class CatalogueError extends StoreError {
  constructor(message: string) {
    super('CATALOGUE_INVALID', message, permanent);
  }
}

/** A verb named a stream that is not in the catalogue, or gave a scope where none fits (a programming error). */
export class StreamUsageError extends StoreError {
  constructor(
    readonly stream: string,
    message: string,
  ) {
    super('STREAM_USAGE', `${stream}: ${message}`, permanent);
  }
}

/**
 * The state row moved since the run read it: another run advanced it (invariant 3). The whole
 * transaction was rolled back; the run must stop, not retry with the new version.
 */
export class StateConflictError extends StoreError {
  constructor(
    readonly stream: string,
    readonly partition: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(
      'STATE_CONFLICT',
      `sync state of ${stream}${partition ? `/${partition}` : ''} is at version ${actual}, the run expected ${expected}`,
      superseded,
    );
  }
}

/** A transition would move the watermark backwards (nothing was written). Use `resetState` to start over. */
export class WatermarkRegressionError extends StoreError {
  constructor(
    readonly stream: string,
    readonly partition: string,
    readonly committed: number,
    readonly attempted: number | null,
  ) {
    super(
      'WATERMARK_REGRESSION',
      `watermark of ${stream}${partition ? `/${partition}` : ''} would move back from ${committed} to ${attempted}`,
      permanent,
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A page kept meeting a table whose columns another writer had just changed (each time its rows
 * were mapped again and retried). Nothing of it was committed; a later run writes it.
 */
export class SchemaMovedError extends StoreError {
  constructor(
    readonly stream: string,
    readonly attempts: number,
  ) {
    super(
      'SCHEMA_MOVED',
      `${stream}: the table's columns changed under ${attempts} attempts to write a page`,
      transient,
    );
  }
}

/**
 * A record the store cannot hold as received (nested too deep to serialize): its page or list
 * fails, nothing of it committed, the watermark stays. Permanent: the same record fails the same way.
 */
export class UnstorableRecordError extends StoreError {
  constructor(
    readonly stream: string,
    readonly id: string,
    reason: string,
  ) {
    super(
      'RECORD_UNSTORABLE',
      `${stream}: record ${id} cannot be stored: ${reason}; nothing of its page was stored`,
      permanent,
    );
  }
}

/**
 * The database refused a write for what it holds (PostgreSQL SQLSTATE class 22 data exception, 23
 * integrity violation after one repeat, 54 program limit; SQLite constraint, too big, mismatch):
 * repeating it gets the same answer. Names what was written and the database's code.
 */
export class StoreRefusedError extends StoreError {
  constructor(what: string, cause: unknown) {
    const code = (cause as { code?: unknown }).code;
    super(
      'STORE_REFUSED',
      `the database refused ${what}: ${typeof code === 'string' ? `[${code}] ` : ''}${messageOf(cause)}`,
      permanent,
      { cause },
    );
  }
}
