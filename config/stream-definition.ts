import type { RecordName } from '../schemas/index.js';

/** SQL type of a typed column; each dialect maps it (timestamp: TEXT ISO 8601 in SQLite, timestamptz in PostgreSQL). */
export type ColumnType = 'text' | 'integer' | 'bigint' | 'real' | 'boolean' | 'timestamp' | 'date';

/** A typed column copied out of the record for BI: `path` is a dotted path into the record as received. */
export interface ColumnDefinition {
  readonly type: ColumnType;
  readonly path: string;
}

/** The column that scopes a stream's rows (part of the primary key with `id`). */
export type ScopeColumn = 'operator_id' | 'invoice_id' | 'client_id';

interface StreamBase {
  /** The record schema (schemas/index.ts) every received record is validated against. */
  readonly record: RecordName;
  /** Dotted path of the record's key, stored as text in `id`. */
  readonly key: string;
  /** Typed columns beside `data`, by column name. */
  readonly columns: Readonly<Record<string, ColumnDefinition>>;
  readonly description: string;
}

/** `since` + cursor listing (spec section 8); the cycle's `maxSequence` becomes the watermark. */
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
  /** Dotted path of the record's time within the window. */
  readonly timeField: string;
}

export type StreamDefinition = SequenceStream | ChildStream | SnapshotStream | WindowStream;
