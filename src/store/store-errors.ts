import { permanent, superseded, TmsSyncError, transient } from '../tms-sync-error.js';

/**
 * Base of every store error. Each declares its stable `code` and its retry decision as its own
 * fields (src/tms-sync-error.ts), so callers branch on them rather than on messages or classes.
 */
export abstract class StoreError extends TmsSyncError {}

/** The store could not be opened or reached (file not writable, server down, database missing): it may come back. */
export class StoreConnectionError extends StoreError {
  readonly code = 'STORE_UNREACHABLE';
  readonly retry = transient;
  override get preventsStart(): boolean {
    return true;
  }

  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

/** A migration failed; the store is left at the last migration that succeeded. */
export class MigrationError extends StoreError {
  readonly code = 'MIGRATION_FAILED';
  readonly retry = transient;
  override get preventsStart(): boolean {
    return true;
  }

  constructor(
    readonly migration: string | undefined,
    cause: unknown,
  ) {
    super(`migration ${migration ?? '(setup)'} failed: ${messageOf(cause)}`, { cause });
  }
}

/** The catalogue has a stream or column the store cannot represent (a programming error). */
export class CatalogueError extends StoreError {
  readonly code = 'CATALOGUE_INVALID';
  readonly retry = permanent;
}

/** A verb named a stream that is not in the catalogue, or gave a scope where none fits (a programming error). */
export class StreamUsageError extends StoreError {
  readonly code = 'STREAM_USAGE';
  readonly retry = permanent;

  constructor(
    readonly stream: string,
    message: string,
  ) {
    super(`${stream}: ${message}`);
  }
}

/**
 * The state row moved since the run read it: another run advanced it (docs/sync-engine.md,
 * invariant 3). The whole transaction was rolled back; the run must stop, not retry with the new version.
 */
export class StateConflictError extends StoreError {
  readonly code = 'STATE_CONFLICT';
  readonly retry = superseded;

  constructor(
    readonly stream: string,
    readonly partition: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(
      `sync state of ${stream}${partition ? `/${partition}` : ''} is at version ${actual}, the run expected ${expected}`,
    );
  }
}

/** A transition would move the watermark backwards (nothing was written). Use `resetState` to start over. */
export class WatermarkRegressionError extends StoreError {
  readonly code = 'WATERMARK_REGRESSION';
  readonly retry = permanent;

  constructor(
    readonly stream: string,
    readonly partition: string,
    readonly committed: number,
    readonly attempted: number | null,
  ) {
    super(
      `watermark of ${stream}${partition ? `/${partition}` : ''} would move back from ${committed} to ${attempted}`,
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
  readonly code = 'SCHEMA_MOVED';
  readonly retry = transient;

  constructor(
    readonly stream: string,
    readonly attempts: number,
  ) {
    super(`${stream}: the table's columns changed under ${attempts} attempts to write a page`);
  }
}

/**
 * A record the store cannot hold as received (nested too deep to serialize): its page or list
 * fails, nothing of it committed, the watermark stays. Permanent: the same record fails the same way.
 */
export class UnstorableRecordError extends StoreError {
  readonly code = 'RECORD_UNSTORABLE';
  readonly retry = permanent;

  constructor(
    readonly stream: string,
    readonly id: string,
    reason: string,
  ) {
    super(`${stream}: record ${id} cannot be stored: ${reason}; nothing of its page was stored`);
  }
}

/**
 * The database refused a write for what it holds (PostgreSQL SQLSTATE class 22 data exception, 23
 * integrity violation after one repeat, 54 program limit; SQLite constraint, too big, mismatch):
 * repeating it gets the same answer. Names what was written and the database's code.
 */
export class StoreRefusedError extends StoreError {
  readonly code = 'STORE_REFUSED';
  readonly retry = permanent;

  constructor(what: string, cause: unknown) {
    const code = (cause as { code?: unknown }).code;
    super(
      `the database refused ${what}: ${typeof code === 'string' ? `[${code}] ` : ''}${messageOf(cause)}`,
      {
        cause,
      },
    );
  }
}
