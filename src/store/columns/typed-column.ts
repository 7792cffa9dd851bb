import type { ColumnType } from '../../../config/stream-definition.js';

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
