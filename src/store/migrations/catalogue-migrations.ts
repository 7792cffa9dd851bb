import type { Migration } from 'kysely';
import type { HistorySql } from '../history-dialect.js';
import type { PartitionRunsSql, SqlTypes } from '../store-dialect.js';
import type { StreamTable } from '../stream-tables.js';
import {
  bookkeepingMigration,
  childFailuresMigration,
  childQueueMigration,
  childRefreshMigration,
  runSuccessesMigration,
} from './bookkeeping-migration.js';
import { centsColumnsMigration } from './cents-columns-migration.js';
import { commandsMigration } from './commands-migration.js';
import { connectionsMigration } from './connections-migration.js';
import { historyMigration } from './history-migration.js';
import { liveViewsMigration } from './live-views-migration.js';
import {
  endedRunSuccessesMigration,
  partitionRunsMigration,
  runsOneIndexMigration,
} from './partition-runs-migration.js';
import { schemaRegistryMigration } from './schema-registry-migration.js';
import { createStreamTableMigration, specColumnMigration } from './stream-table-migrations.js';

/**
 * Every migration the store knows, by name. The names are the rule that turns a catalogue change
 * into a migration (docs/store.md):
 * - `0001-bookkeeping` ... `0016-ended-run-successes`: static, numbered (each branch of work takes its own number);
 * - `stream-<stream>`: the table of a stream with its fixed columns (adding a stream adds it);
 * - `stream-<stream>-spec-<column>`: one of the catalogue's typed columns (adding one adds it; it is
 *   backfilled). Inferred columns are no migrations: writes add them (prepare-rows.ts).
 * A name sorts before its table's column names, so a new stream's table exists before its columns.
 * Names that ran before but left the catalogue (a removed stream or column) stay as no-ops: their
 * table or column remains in the database, unwritten, for whoever still reads it.
 */
export function catalogueMigrations(
  tables: readonly StreamTable[],
  parts: { types: SqlTypes; history: HistorySql; partitionRuns: PartitionRunsSql },
  executed: readonly string[],
): Record<string, Migration> {
  const { types } = parts;
  const migrations: Record<string, Migration> = {
    '0001-bookkeeping': bookkeepingMigration(types),
    '0002-child-queue': childQueueMigration(types),
    '0003-child-refresh': childRefreshMigration(types),
    '0004-schema-registry': schemaRegistryMigration(types, [...tables]),
    '0005-child-failures': childFailuresMigration(),
    '0007-live-views': liveViewsMigration(types, tables),
    '0008-commands': commandsMigration(types),
    '0009-run-successes': runSuccessesMigration(),
    '0011-history': historyMigration(types),
    '0012-partition-runs': partitionRunsMigration(types, parts.partitionRuns.create),
    '0013-cents-columns': centsColumnsMigration(tables, parts),
    '0015-connections': connectionsMigration(types),
    '0016-ended-run-successes': endedRunSuccessesMigration(parts.partitionRuns),
    '0017-runs-one-index': runsOneIndexMigration(parts.partitionRuns),
  };
  for (const table of tables) {
    // The typed columns a table got in its CREATE TABLE, when it was created in this run.
    const created = new Set<string>();
    migrations[`stream-${table.name}`] = createStreamTableMigration(table, types, created);
    for (const column of table.columns) {
      const add = specColumnMigration(table, column, parts);
      migrations[`stream-${table.name}-spec-${column.name}`] = {
        up: (db) => (created.has(column.name) ? Promise.resolve() : add.up(db)),
      };
    }
  }
  for (const name of executed) migrations[name] ??= { up: async () => {} };
  return migrations;
}
