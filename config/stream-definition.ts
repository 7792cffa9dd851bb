/**
 * SQL type of a typed column; each dialect maps it (docs/store.md): `number` is an exact decimal
 * (PostgreSQL numeric, SQLite NUMERIC), `timestamp` TEXT ISO 8601 UTC in SQLite and timestamptz in
 * PostgreSQL, `date` a calendar date. `cents` is the store's own: beside every number column, its
 * value in hundredths as an integer, whose sums are exact on SQLite too (its decimals are floats).
 */
export type ColumnType =
  | 'text'
  | 'integer'
  | 'bigint'
  | 'real'
  | 'number'
  | 'boolean'
  | 'timestamp'
  | 'date'
  | 'cents';

/** A typed column for a field docs/api.md shows, with a stable name: `path` is a dotted path into the record. */
export interface ColumnDefinition {
  readonly type: ColumnType;
  readonly path: string;
}

/**
 * How a stream's records are identified (the text of the `id` column; docs/records.md). This is
 * protocol, read strictly: a record that needs a key field and has none fails its page.
 * - `{ field }`: the record's field at that dotted path, a string or a safe integer;
 * - `{ field, orPosition: true }`: that field when the record has one, else its position in the
 *   complete list (`#1`, `#2`, ...), for complete lists whose records docs/api.md gives no identity;
 * - `{ fromRequest: true }`: single records, identified by what was asked for (the operator, the
 *   order id in the path, or `current` for a global one).
 */
export type RecordKey =
  | { readonly field: string; readonly orPosition?: boolean }
  | { readonly fromRequest: true };

/** The column that scopes a stream's rows (part of the primary key with `id`). */
export type ScopeColumn = 'operator_id' | 'invoice_id' | 'client_id';

interface StreamBase {
  /** How a record is identified: its `id` column. */
  readonly key: RecordKey;
  /**
   * Typed columns with stable names for the fields docs/api.md shows, by column name. Every other
   * field gets a column inferred from the records received (docs/store.md, "Typed columns").
   */
  readonly columns: Readonly<Record<string, ColumnDefinition>>;
  readonly description: string;
}

/** `since` + cursor listing (docs/api.md, Listings); the cycle's `maxSequence` becomes the watermark. */
export interface SequenceStream extends StreamBase {
  readonly strategy: 'sequence';
  readonly path: string;
  /** The listing also answers `status=deleted` with the soft-deleted records. */
  readonly softDeletes: boolean;
}

/** Refreshed for each parent record that changed in the parent's cycle. */
export interface ChildStream extends StreamBase {
  readonly strategy: 'child';
  readonly parent: string;
  /** Path with `{id}` for the parent's key (percent-encoded). */
  readonly path: string;
  /** `listing`: a paginated listing of children; `detail`: a single resource whose array field `itemsField` holds them. */
  readonly source: 'listing' | 'detail';
  readonly itemsField?: string;
  readonly scopeColumn: 'invoice_id' | 'client_id';
}

/** The full list replaces the scope; rows no longer listed get `deleted_at`. */
export interface SnapshotStream extends StreamBase {
  readonly strategy: 'snapshot';
  readonly path: string;
  /** `operator`: read once per configured operator with `operatorId`; `global`: master data read once. */
  readonly scope: 'operator' | 'global';
  /** Fixed query parameters (e.g. `latest=true`). */
  readonly query?: Readonly<Record<string, string>>;
  /** The answer is one record (settings, planning, version, a dossier folder), not a list. @default false */
  readonly single?: boolean;
  /** Listings that need `ids`: which stream's synced rows supply them and where in those records. */
  readonly idsFrom?: {
    readonly stream: string;
    readonly path: string;
    readonly param: 'ids' | 'path';
    readonly batch: number;
  };
}

/** A time window (fromMoment/toMoment) re-read with an overlap for late arrivals, deduplicated by key. */
export interface WindowStream extends StreamBase {
  readonly strategy: 'window';
  readonly path: string;
  readonly scope: 'operator';
  readonly fromParam: string;
  readonly toParam: string;
}

export type StreamDefinition = SequenceStream | ChildStream | SnapshotStream | WindowStream;
