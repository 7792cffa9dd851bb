/**
 * The server broke a rule of spec section 8 during a cycle (no `maxSequence` with `since`, a
 * `maxSequence` that changed or went backwards): the page is refused, nothing of it is committed.
 */
export class SyncProtocolError extends Error {
  override readonly name = 'SyncProtocolError';
  readonly code = 'SYNC_PROTOCOL';

  constructor(
    readonly stream: string,
    message: string,
  ) {
    super(`${stream}: ${message}`);
  }
}

/** A stream needs configuration it does not have (e.g. TMS_OPERATORS for per-operator streams). */
export class SyncConfigurationError extends Error {
  override readonly name = 'SyncConfigurationError';
  readonly code = 'SYNC_CONFIGURATION';
}

/** A stream name that is not in the catalogue (a usage error: exit code 2). */
export class UnknownStreamError extends Error {
  override readonly name = 'UnknownStreamError';
  readonly code = 'UNKNOWN_STREAM';

  constructor(
    readonly unknown: readonly string[],
    known: readonly string[],
  ) {
    super(`unknown stream ${unknown.join(', ')}; known: ${known.join(', ')}`);
  }
}
