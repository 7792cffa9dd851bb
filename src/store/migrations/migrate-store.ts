import { type Kysely, type MigrationResult, Migrator, sql } from 'kysely';
import type { StoreDatabase } from '../database.js';
import { MigrationError } from '../errors.js';
import type { HistorySwitch } from '../history/switch-history.js';
import type { StoreDialect } from '../store-dialect.js';
import type { StreamTable } from '../stream-tables.js';
import { catalogueMigrations } from './catalogue-migrations.js';

const migrationTable = 'kysely_migration';

/** What `migrate` did: the names it applied, in order (empty when the store was up to date). */
export interface MigrationSummary {
  readonly applied: readonly string[];
  /** Streams whose history mode the settings switched (only when the store was opened with them). */
  readonly history?: HistorySwitch;
}

/**
 * Brings the store to the catalogue's schema. All pending migrations run in one transaction on
 * both dialects (under PostgreSQL's advisory lock, or SQLite's write lock), so two processes
 * starting together do not both create a table, and a failure leaves the schema as it was.
 */
export async function migrateStore(
  dialect: StoreDialect,
  tables: readonly StreamTable[],
): Promise<MigrationSummary> {
  const executed = await executedMigrations(dialect.db);
  const migrations = catalogueMigrations(tables, dialect, executed);
  // The common case, a store already current, costs this one read: the Migrator would introspect
  // every table and take its lock before finding nothing to do. Whatever is pending goes through it.
  const done = new Set(executed);
  if (Object.keys(migrations).every((name) => done.has(name))) return { applied: [] };
  const migrator = new Migrator({
    db: dialect.db,
    provider: { getMigrations: async () => migrations },
    // A stream added later sorts anywhere among the names that already ran.
    allowUnorderedMigrations: true,
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw new MigrationError(results.find((r) => r.status === 'Error')?.migrationName, error);
  return {
    applied: results.filter((r: MigrationResult) => r.status === 'Success').map((r) => r.migrationName),
  };
}

/** Names already applied; none for a new store (any other failure resurfaces in the Migrator's own queries). */
async function executedMigrations(db: Kysely<StoreDatabase>): Promise<string[]> {
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(migrationTable)}`.execute(db);
    return rows.map((row) => row.name);
  } catch {
    return [];
  }
}
