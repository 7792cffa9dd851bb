import type { Kysely, Migration } from 'kysely';
import { liveViewStatement } from '../live-view.js';
import type { SqlTypes } from '../store-dialect.js';
import type { StreamTable } from '../stream-tables.js';

/**
 * `0007-live-views`: the live view of every stream table a store made before it already has
 * (`<stream>_live`, docs/store.md). Tables created later get theirs with the table
 * (`stream-<stream>`); on PostgreSQL each added column defines the view again.
 */
export function liveViewsMigration(types: SqlTypes, tables: readonly StreamTable[]): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const existing = new Set((await db.introspection.getTables()).map((table) => table.name));
      for (const table of tables) {
        if (existing.has(table.name)) await db.executeQuery(liveViewStatement(table.name, types));
      }
    },
  };
}
