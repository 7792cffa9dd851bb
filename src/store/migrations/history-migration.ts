import type { Kysely, Migration } from 'kysely';
import type { SqlTypes } from '../store-dialect.js';

/**
 * `0011-history`: `stream_schemas.history_since`, when history mode was switched on for a stream
 * (null: off). The history objects of a stream come with the setting (history/switch-history.ts).
 */
export function historyMigration(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('stream_schemas').addColumn('history_since', types.timestamp).execute();
    },
  };
}
