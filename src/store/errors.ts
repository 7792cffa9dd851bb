/** Base of every store error: `code` is stable, so callers branch on it rather than on messages. */
export class StoreError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** STORE_URL is missing, malformed or names an unsupported database. Fix the configuration. */
export class StoreUrlError extends StoreError {
  constructor(message: string) {
    super('STORE_URL_INVALID', message);
  }
}

/** The store could not be opened or reached (file not writable, server down, database missing). */
export class StoreConnectionError extends StoreError {
  constructor(message: string, cause: unknown) {
    super('STORE_UNREACHABLE', message, { cause });
  }
}

/** A migration failed; the store is left at the last migration that succeeded. */
export class MigrationError extends StoreError {
  constructor(
    readonly migration: string | undefined,
    cause: unknown,
  ) {
    super('MIGRATION_FAILED', `migration ${migration ?? '(setup)'} failed: ${messageOf(cause)}`, { cause });
  }
}

/** The catalogue has a stream or column the store cannot represent (a programming error). */
export class CatalogueError extends StoreError {
  constructor(message: string) {
    super('CATALOGUE_INVALID', message);
  }
}

/** A verb named a stream that is not in the catalogue, or gave a scope where none fits (a programming error). */
export class StreamUsageError extends StoreError {
  constructor(
    readonly stream: string,
    message: string,
  ) {
    super('STREAM_USAGE', `${stream}: ${message}`);
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
    );
  }
}

/**
 * A pass would delete an implausible share of a scope's live rows (invariant 4). Nothing changed;
 * a person should look (an upstream outage answering empty lists looks exactly like this).
 */
export class MassDeleteError extends StoreError {
  constructor(
    readonly stream: string,
    readonly scope: string | undefined,
    readonly wouldDelete: number,
    readonly live: number,
    readonly share: number,
  ) {
    super(
      'MASS_DELETE',
      `${stream}${scope ? `/${scope}` : ''}: would mark ${wouldDelete} of ${live} live rows deleted ` +
        `(${(share * 100).toFixed(1)}%); stopped, nothing changed`,
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
