import { type Kysely, type MigrationResult, Migrator, sql } from 'kysely';
import type { StoreDatabase } from '../database.js';
import type { HistorySwitch } from '../history/switch-history.js';
import type { StoreDialect } from '../store-dialect.js';
import { MigrationError } from '../store-errors.js';
import type { StreamTable } from '../stream-tables.js';
import { catalogueMigrations } from './catalogue-migrations.js';

const migrationTable = 'kysely_migration';

/** What `migrate` did: the names it applied, in order (empty when the store was up to date). */
export interface MigrationSummary {
  readonly applied: readonly string[];
  /** Streams whose history mode the settings switched (only when the store was opened with them). */
  readonly history?: HistorySwitch;
}

/** What `migrateStore` did, and the stream tables the store holds now. */
interface MigrationOutcome extends MigrationSummary {
  readonly present: readonly string[];
}

/**
 * Brings the store to the catalogue's schema: the tables of the `selected` streams (all when
 * undefined) and of every stream whose table an earlier run made (kept current, never dropped).
 * All pending migrations run in one transaction on both dialects (under PostgreSQL's advisory
 * lock, or SQLite's write lock), so two processes starting together do not both create a table,
 * and a failure leaves the schema as it was.
 */
export async function migrateStore(
  dialect: StoreDialect,
  tables: readonly StreamTable[],
  selected?: ReadonlySet<string>,
): Promise<MigrationOutcome> {
  if (dialect.schema) await createSchema(dialect.db, dialect.schema);
  const executed = await executedMigrations(dialect.db);
  const done = new Set(executed);
  const kept = tables.filter(
    (table) => selected === undefined || selected.has(table.name) || done.has(`stream-${table.name}`),
  );
  const present = kept.map((table) => table.name);
  const migrations = catalogueMigrations(kept, dialect, executed);
  // The common case, a store already current, costs this one read: the Migrator would introspect
  // every table and take its lock before finding nothing to do. Whatever is pending goes through it.
  if (Object.keys(migrations).every((name) => done.has(name))) return { applied: [], present };
  const migrator = new Migrator({
    db: dialect.db,
    provider: { getMigrations: async () => migrations },
    ...(await migrationTableSchema(dialect)),
    // A stream added later sorts anywhere among the names that already ran.
    allowUnorderedMigrations: true,
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw new MigrationError(results.find((r) => r.status === 'Error')?.migrationName, error);
  return {
    applied: results.filter((r: MigrationResult) => r.status === 'Success').map((r) => r.migrationName),
    present,
  };
}

/**
 * PostgreSQL: the schema of Kysely's own tables, named, since it looks for them in every schema of
 * the database: another mirror's (another schema's) would pass for this store's.
 */
async function migrationTableSchema(dialect: StoreDialect): Promise<{ migrationTableSchema?: string }> {
  if (dialect.schema) return { migrationTableSchema: dialect.schema };
  if (dialect.name !== 'postgres') return {};
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(dialect.db);
  return rows[0]?.schema ? { migrationTableSchema: rows[0].schema } : {};
}

/**
 * Made first: with a search_path of this schema alone nothing could be created before it exists.
 * Looked up before: CREATE SCHEMA needs a right on the database even when the schema is there.
 */
async function createSchema(db: Kysely<StoreDatabase>, schema: string): Promise<void> {
  const { rows } = await sql`select 1 from pg_namespace where nspname = ${schema}`.execute(db);
  if (rows.length === 0) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
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
