import type { ColumnType, Generated } from 'kysely';

/** A timestamp: written as ISO 8601 text; read back as text (SQLite) or Date (PostgreSQL). */
type Timestamp = ColumnType<string | Date, string, string>;

/** JSON: written as text; read back as text (SQLite) or parsed (PostgreSQL JSONB). */
type Json = ColumnType<unknown, string | null, string | null>;

/** A count or id: int8 in PostgreSQL, parsed to number by the dialect. */
type Int = ColumnType<number, number, number>;

export interface SyncStateTable {
  stream: string;
  partition: string;
  watermark: number | null;
  cursor: string | null;
  cycle_max_sequence: number | null;
  strategy_state: Json;
  version: Int;
  updated_at: Timestamp;
}

export interface SyncRunsTable {
  id: Generated<number>;
  stream: string;
  partition: string;
  trigger: string;
  started_at: Timestamp;
  finished_at: ColumnType<string | Date | null, string | null, string | null>;
  pages: Int;
  inserted: Int;
  updated: Int;
  deleted: Int;
  rejected: Int;
  drift: Generated<number>;
  held_deletes: Generated<number>;
  result: string;
  error: string | null;
}

export interface RejectedRecordsTable {
  id: Generated<number>;
  run_id: number | null;
  stream: string;
  scope: string | null;
  record_key: string | null;
  reason: string;
  data: string;
  rejected_at: Timestamp;
}

/** Parents whose children need a refresh, per child stream; `taken_at` is set while a run works on one. */
export interface ChildQueueTable {
  stream: string;
  parent_id: string;
  queued_at: Timestamp;
  taken_at: ColumnType<string | Date | null, string | null, string | null>;
  /** Why the parent's children could not be fetched, the last time; null when no run failed on it. */
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  /** Runs that failed on this parent since it was queued. */
  failures: ColumnType<number, number | undefined, number>;
}

/**
 * Child streams that must refresh every live parent (a parent's full cycle ended): one row instead
 * of a queue entry per parent. `after_id` is the pass's progress, `taken_at` set while a run works.
 */
export interface ChildRefreshTable {
  stream: string;
  queued_at: Timestamp;
  taken_at: ColumnType<string | Date | null, string | null, string | null>;
  after_id: string | null;
}

/** One typed column of a stream table: the catalogue's (`spec`) or inferred from the data. */
export interface StreamColumnsTable {
  stream: string;
  name: string;
  /** JSON array of the property names from the record's top level down. */
  path: string;
  type: string;
  origin: string;
  /** Order of the column in the table's schema. */
  position: Int;
  added_at: Timestamp;
  /** Values that did not fit the column's type (stored as NULL), ever. */
  drift: Int;
  drift_sample: string | null;
  drift_at: ColumnType<string | Date | null, string | null, string | null>;
}

/** The version of a stream table's columns: every added column bumps it (compare-and-set). */
export interface StreamSchemasTable {
  stream: string;
  version: Int;
  /** Fields left without a column (the per-table cap), the most seen at once. */
  refused_fields: Int;
  updated_at: Timestamp;
  /** When history mode was switched on (0011-history); null: off. */
  history_since: ColumnType<string | Date | null, string | null | undefined, string | null>;
}

/** A scope whose deletes the guard held back (delete-guard.ts), until approved or settled. */
export interface HeldDeletesTable {
  stream: string;
  scope: string;
  reason: string;
  would_delete: Int;
  live_before: Int;
  live_after: Int;
  run_id: number | null;
  detected_at: Timestamp;
  approved_at: ColumnType<string | Date | null, string | null, string | null>;
}

/** A nullable timestamp column. */
type NullableTimestamp = ColumnType<string | Date | null, string | null | undefined, string | null>;

/** A column the database fills by default on insert (a user's plain SQL insert leaves it out). */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

/** The write-back outbox (src/store/outbox/, docs/write-back.md): one row per command. */
export interface TmsCommandsTable {
  id: Generated<number>;
  kind: string;
  target: string | null;
  body: Json;
  /** Comma-separated fields of the body that identify a created record (its match key). */
  match_fields: string | null;
  status: Defaulted<string>;
  attempts: Defaulted<number>;
  last_error: string | null;
  /** The id of the record a create made (the TMS's answer, or found by reading back). */
  created_id: string | null;
  /** Commands of one lane (a target) are delivered one at a time, in id order; set when admitted. */
  lane: string | null;
  /** 1 while an attempt may have reached the TMS and its outcome is unknown. */
  in_doubt: Defaulted<number>;
  /** Ids of records matching a create before its first send (JSON array), so they are never taken for it. */
  seen_before: Json;
  owner: string | null;
  lease_until: NullableTimestamp;
  next_attempt_at: NullableTimestamp;
  created_at: Defaulted<string | Date>;
  updated_at: Defaulted<string | Date>;
}

/**
 * A stream table as the shared code sees it: the fixed columns, plus the scope column and typed
 * columns, which only the catalogue knows (hence the index signature).
 */
export interface StreamTableRow {
  id: string;
  data: Json;
  sequence: number | null;
  synced_at: Timestamp;
  deleted_at: ColumnType<string | Date | null, string | null, string | null>;
  deleted_reason: string | null;
  [column: string]: unknown;
}

/** The bookkeeping tables, typed; stream tables are reached through `StreamTables`. */
/** Per stream partition: its latest run and latest success, kept by triggers on `sync_runs`. */
export interface PartitionRunsTable {
  stream: string;
  partition: string;
  last_run_id: number;
  last_success_at: string | Date | null;
}

export interface StoreDatabase {
  sync_state: SyncStateTable;
  sync_runs: SyncRunsTable;
  partition_runs: PartitionRunsTable;
  rejected_records: RejectedRecordsTable;
  child_queue: ChildQueueTable;
  child_refresh: ChildRefreshTable;
  stream_columns: StreamColumnsTable;
  stream_schemas: StreamSchemasTable;
  held_deletes: HeldDeletesTable;
  tms_commands: TmsCommandsTable;
}

export type StreamTables = Record<string, StreamTableRow>;
