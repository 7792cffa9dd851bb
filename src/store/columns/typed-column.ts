import type { ColumnType } from '../../../config/stream-definition.js';
import { processTable } from '../process-table.js';

/** Where a typed column came from: the catalogue (a field docs/api.md shows, stable name) or the data. */
export type ColumnOrigin = 'spec' | 'inferred';

/** A typed column of a stream table: the value at `path` in each record, converted to `type`. */
export interface TypedColumn {
  readonly name: string;
  /** Property names from the record's top level down (`['address', 'city']`). */
  readonly path: readonly string[];
  readonly type: ColumnType;
  readonly origin: ColumnOrigin;
}

/**
 * Columns as the process holds them: the stores of many connections read the same columns of the
 * same streams, and each kept its own copies (a worker of 50 connections held ~150 column objects
 * and their paths per connection). A column is immutable, so one copy serves them all.
 */
const columns = processTable<TypedColumn>(20_000);

/** The process's copy of `column`, frozen. */
export function sharedColumn(column: TypedColumn): TypedColumn {
  const key = `${column.name}\u0000${column.path.join('\u001f')}\u0000${column.type}\u0000${column.origin}`;
  return columns(key, () => Object.freeze({ ...column, path: Object.freeze([...column.path]) }));
}
