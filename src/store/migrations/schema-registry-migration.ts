import { type Kysely, type Migration, sql } from 'kysely';
import type { SqlTypes } from '../store-dialect.js';
import { reservedNames, type StreamTable } from '../stream-tables.js';

/**
 * `0004-schema-registry`: the typed columns of every stream table become data (`stream_columns`,
 * `stream_schemas`), deletes held back by the guard get a table (`held_deletes`), and runs count
 * drift and held deletes. A store made before it had typed columns chosen for tms-sim's own
 * records: they are dropped (everything stays in `data`); the spec's columns come back by their
 * own migrations, the rest are inferred again as records arrive (docs/store.md, "Upgrading").
 */
export function schemaRegistryMigration(types: SqlTypes, tables: readonly StreamTable[]): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('stream_columns')
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('added_at', types.timestamp, (c) => c.notNull())
        .addColumn('drift', types.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('drift_sample', 'text')
        .addColumn('drift_at', types.timestamp)
        .addPrimaryKeyConstraint('stream_columns_pkey', ['stream', 'name'])
        .execute();
      await db.schema
        .createTable('stream_schemas')
        .addColumn('stream', 'text', (c) => c.primaryKey())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('refused_fields', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', types.timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('held_deletes')
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('would_delete', 'integer', (c) => c.notNull())
        .addColumn('live_before', 'integer', (c) => c.notNull())
        .addColumn('live_after', 'integer', (c) => c.notNull())
        .addColumn('run_id', types.bigint)
        .addColumn('detected_at', types.timestamp, (c) => c.notNull())
        .addColumn('approved_at', types.timestamp)
        .addPrimaryKeyConstraint('held_deletes_pkey', ['stream', 'scope'])
        .execute();
      await db.schema
        .alterTable('sync_runs')
        .addColumn('drift', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('sync_runs')
        .addColumn('held_deletes', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await adoptExistingTables(db, tables);
    },
  };
}

/** Stream tables made before this migration: their old typed columns go, their schema row starts at 0. */
async function adoptExistingTables(db: Kysely<unknown>, tables: readonly StreamTable[]): Promise<void> {
  const existing = new Map((await db.introspection.getTables()).map((table) => [table.name, table]));
  for (const table of tables) {
    const stored = existing.get(table.name);
    if (!stored) continue;
    const keep = new Set(reservedNames(table));
    for (const column of stored.columns) {
      if (!keep.has(column.name)) await db.schema.alterTable(table.name).dropColumn(column.name).execute();
    }
    await sql`insert into stream_schemas (stream, version, refused_fields, updated_at) values (${table.name}, 0, 0, ${new Date().toISOString()})`.execute(
      db,
    );
  }
}
