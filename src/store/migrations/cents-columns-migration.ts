import type { Kysely, Migration } from 'kysely';
import { withCentsColumns } from '../columns/cents-columns.js';
import type { StoreDatabase } from '../database.js';
import type { HistorySql } from '../history-dialect.js';
import { toColumn } from '../schema/schema-registry.js';
import type { SqlTypes } from '../store-dialect.js';
import { reservedNames, type StreamTable } from '../stream-tables.js';
import { addStoredColumn } from './stream-table-migrations.js';

/**
 * `0013-cents-columns`: the `_cents` companion of every number column a store inferred before
 * companions existed, filled from `data` (docs/store.md, "Amounts"). The catalogue's number
 * columns get theirs by their own spec migrations; columns inferred later come with theirs.
 */
export function centsColumnsMigration(
  tables: readonly StreamTable[],
  parts: { types: SqlTypes; history: HistorySql },
): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const store = db as Kysely<StoreDatabase>;
      for (const table of tables) {
        const rows = await store
          .selectFrom('stream_columns')
          .selectAll()
          .where('stream', '=', table.name)
          .orderBy('position')
          .execute();
        const columns = rows.map(toColumn);
        const taken = new Set(reservedNames(table));
        // The catalogue's companions come by their own spec migrations, after this one.
        const grown = withCentsColumns(columns, taken).filter(
          (column) => !columns.includes(column) && column.origin === 'inferred',
        );
        for (const column of grown) await addStoredColumn(db, table, column, parts);
      }
    },
  };
}
