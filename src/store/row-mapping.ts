import type { ColumnValue } from './columns/column-values.js';
import type { PageObservations } from './columns/page-observations.js';
import { createRecordWalker } from './columns/record-walk.js';
import type { StoreRecord } from './store-types.js';
import type { StreamTable } from './stream-tables.js';

/** A record ready for a stream table; `values` follow `StreamTable.columns`. */
export interface MappedRow {
  readonly id: string;
  readonly sequence: number | null;
  /** The record as received; the dialect's upsert serializes it for `data` (stored-record.ts). */
  readonly record: unknown;
  readonly values: readonly ColumnValue[];
  /** The record's index in the list mapped (its item in `WritePageInput.received`). */
  readonly position: number;
}

/** Maps one list of a stream's records to rows, noting drift and fields without a column. */
export type RowMapper = (records: readonly StoreRecord[], observations: PageObservations) => MappedRow[];

/**
 * Builds the mapper of a stream table at one version of its columns. A list that holds a key
 * twice (window overlaps, group re-deliveries) keeps one row per key, chosen by the same rule as
 * the upsert's guard, because PostgreSQL refuses to upsert one key twice in a statement.
 */
export function createRowMapper(table: StreamTable): RowMapper {
  const walk = createRecordWalker(table.columns, table.excluded);
  return (records, observations) => {
    const rows: MappedRow[] = [];
    const indexById = new Map<string, number>();
    for (let position = 0; position < records.length; position++) {
      const { key, sequence, data } = records[position]!;
      const row = { id: key, sequence, record: data, values: walk(data, observations), position };
      const index = indexById.get(key);
      if (index === undefined) indexById.set(key, rows.push(row) - 1);
      else if (wins(row.sequence, rows[index]!.sequence)) rows[index] = row;
    }
    return rows;
  };
}

/** The upsert's guard: an incoming row wins unless both have sequences and the incoming one is lower. */
export function wins(incoming: number | null, current: number | null): boolean {
  return incoming === null || current === null || incoming >= current;
}
