import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import type { StoreDatabase } from '../database.js';

/**
 * Transactions begin IMMEDIATE: a page transaction reads (state, sequences) before it writes, and
 * a deferred one would fail with SQLITE_BUSY on the lock upgrade when another process wrote in
 * between; an immediate one waits its turn on busy_timeout instead.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** SQLite's DDL is transactional, so the Migrator may run all pending migrations in one transaction. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class StoreSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/** Kysely on the one better-sqlite3 connection; its mutex also guards the raw hot-path statements. */
export function createSqliteKysely(database: BetterSqlite3.Database): Kysely<StoreDatabase> {
  return new Kysely<StoreDatabase>({ dialect: new StoreSqliteDialect({ database }) });
}
