import { type Kysely, type Migration, sql } from 'kysely';
import type { SqlTypes } from '../store-dialect.js';

/**
 * `0008-commands`: the outbox of write-back commands (docs/write-back.md). A user's system inserts
 * rows with plain SQL (kind, target, body; the rest has defaults); the deliverer fills the others.
 */
export function commandsMigration(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('tms_commands')
        .addColumn('id', types.serialId.type, types.serialId.build)
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('target', 'text')
        .addColumn('body', types.json)
        .addColumn('match_fields', 'text')
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('created_id', 'text')
        .addColumn('lane', 'text')
        .addColumn('in_doubt', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('seen_before', types.json)
        .addColumn('owner', 'text')
        .addColumn('lease_until', types.timestamp)
        .addColumn('next_attempt_at', types.timestamp)
        .addColumn('created_at', types.timestamp, (c) =>
          c.notNull().defaultTo(sql.raw(types.currentTimestamp)),
        )
        .addColumn('updated_at', types.timestamp, (c) =>
          c.notNull().defaultTo(sql.raw(types.currentTimestamp)),
        )
        .execute();
      await db.schema
        .createIndex('tms_commands_status')
        .on('tms_commands')
        .columns(['status', 'id'])
        .execute();
      await db.schema.createIndex('tms_commands_lane').on('tms_commands').columns(['lane', 'id']).execute();
    },
  };
}
