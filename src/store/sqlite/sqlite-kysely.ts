import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  Kysely as KyselyClass,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { StoreDatabase } from '../database.js';
import type { SqliteThread } from './sqlite-messages.js';

/** Kysely's statements, sent to the connection on the SQLite thread. */
class ThreadConnection implements DatabaseConnection {
  /** Between BEGIN and COMMIT or ROLLBACK: every statement then runs on the thread, in order. */
  inTransaction = false;

  constructor(private readonly thread: SqliteThread) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.thread.query(compiled.sql, compiled.parameters, !this.inTransaction);
    if ('rows' in result) return { rows: result.rows as R[] };
    return {
      rows: [],
      numAffectedRows: BigInt(result.changes),
      insertId: BigInt(result.lastInsertRowid),
    };
  }

  // biome-ignore lint/correctness/useYield: the store reads in keyset batches and never streams
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by the SQLite store');
  }
}

/**
 * One connection, so one user at a time: a transaction holds it from BEGIN to COMMIT, and the
 * hot-path calls made inside it (page upsert, id sets) run on the same connection in order.
 * Transactions begin IMMEDIATE: a page transaction reads (state, sequences) before it writes, and
 * a deferred one would fail with SQLITE_BUSY on the lock upgrade when another process wrote in
 * between; an immediate one waits its turn on busy_timeout instead.
 */
class ThreadDriver implements Driver {
  readonly #connection: ThreadConnection;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(private readonly thread: SqliteThread) {
    this.#connection = new ThreadConnection(thread);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    this.#connection.inTransaction = true;
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('commit'));
    } finally {
      this.#connection.inTransaction = false;
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    } finally {
      this.#connection.inTransaction = false;
    }
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.thread.close();
  }
}

/** SQLite's DDL is transactional, so the Migrator may run all pending migrations in one transaction. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ThreadSqliteDialect implements Dialect {
  constructor(private readonly thread: SqliteThread) {}

  createDriver(): Driver {
    return new ThreadDriver(this.thread);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}

/** Kysely on the connection of the SQLite thread. */
export function createSqliteKysely(thread: SqliteThread): Kysely<StoreDatabase> {
  return new KyselyClass<StoreDatabase>({ dialect: new ThreadSqliteDialect(thread) });
}
