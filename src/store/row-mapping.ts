import { type ColumnValue, compilePath, toColumnValue } from './column-values.js';
import type { StreamTable } from './stream-tables.js';

/** A record ready for a stream table; `values` follow `StreamTable.columns`. */
export interface MappedRow {
  readonly id: string;
  readonly sequence: number | null;
  readonly record: unknown;
  readonly values: readonly ColumnValue[];
}

/** A record the store could not place (no usable key or sequence); it goes to `rejected_records`. */
export interface RecordReject {
  readonly key: string | null;
  readonly reason: string;
  readonly data: unknown;
}

/** Reads a record's sequence number; the field's name is the caller's business (PRODUCT.md section 9). */
export type SequenceOf = (record: unknown) => number | null | undefined;

export interface MappedPage {
  readonly rows: readonly MappedRow[];
  readonly rejected: readonly RecordReject[];
}

/** Maps pages of one stream's records to rows, with the path getters compiled once per stream. */
export type RowMapper = (records: readonly unknown[], sequenceOf?: SequenceOf) => MappedPage;

/**
 * Builds the mapper of a stream table. A page that lists a key twice (window overlaps, group
 * re-deliveries) keeps one row per key, chosen by the same rule as the upsert's guard, because
 * PostgreSQL refuses to upsert one key twice in a statement.
 */
export function createRowMapper(table: StreamTable): RowMapper {
  const keyOf = compilePath(table.key);
  const extractors = table.columns.map((column) => {
    const get = compilePath(column.path);
    const convert = toColumnValue[column.type];
    return (record: unknown) => convert(get(record));
  });
  return (records, sequenceOf) => {
    const rows: MappedRow[] = [];
    const rejected: RecordReject[] = [];
    const indexById = new Map<string, number>();
    for (const record of records) {
      const id = keyText(keyOf(record));
      const sequence = sequenceOf ? sequenceOf(record) : null;
      if (id === null) {
        rejected.push({ key: null, reason: `no key at path '${table.key}'`, data: record });
      } else if (sequence != null && !(Number.isSafeInteger(sequence) && sequence >= 0)) {
        rejected.push({
          key: id,
          reason: `sequence ${sequence} is not a safe non-negative integer`,
          data: record,
        });
      } else {
        const row = {
          id,
          sequence: sequence ?? null,
          record,
          values: extractors.map((extract) => extract(record)),
        };
        const index = indexById.get(id);
        if (index === undefined) indexById.set(id, rows.push(row) - 1);
        else if (wins(row.sequence, rows[index]!.sequence)) rows[index] = row;
      }
    }
    return { rows, rejected };
  };
}

/** The upsert's guard: an incoming row wins unless both have sequences and the incoming one is lower. */
export function wins(incoming: number | null, current: number | null): boolean {
  return incoming === null || current === null || incoming >= current;
}

function keyText(key: unknown): string | null {
  if (typeof key === 'string') return key === '' ? null : key;
  if (typeof key === 'number' && Number.isFinite(key)) return String(key);
  return null;
}
