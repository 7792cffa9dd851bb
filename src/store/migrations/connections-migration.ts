import { type Kysely, type Migration, sql } from 'kysely';
import type { SqlTypes } from '../store-dialect.js';

/**
 * `0015-connections`: the connections added, paused and removed through the CLI
 * (docs/connections.md), in the default connection's store. `entry` is the connection as the config
 * file writes one (JSON, its tokens references, never a token); null on a row that only pauses or
 * resumes a connection of the config file. Read and written by src/connections/connection-control.ts.
 */
export function connectionsMigration(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('tms_connections')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('entry', 'text')
        .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', types.timestamp, (c) =>
          c.notNull().defaultTo(sql.raw(types.currentTimestamp)),
        )
        .addColumn('updated_at', types.timestamp, (c) =>
          c.notNull().defaultTo(sql.raw(types.currentTimestamp)),
        )
        .execute();
    },
  };
}
