import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { StoreDialect } from '../store-dialect.js';
import { createSqliteEnqueueParents } from './sqlite-child-queue.js';
import { loadSqliteIdSet } from './sqlite-id-set.js';
import { createSqliteKysely } from './sqlite-kysely.js';
import { sqliteTypes } from './sqlite-types.js';
import { createSqlitePageUpsert } from './sqlite-upsert.js';

export interface SqliteDialectOptions {
  /** File path, or `:memory:`; missing parent directories are created. */
  readonly path: string;
  /** How long a write waits for another process's lock. @default 5000 */
  readonly busyTimeoutMs?: number;
}

/** Opens the SQLite file in WAL mode with synchronous=NORMAL (durable at page-transaction granularity). */
export function openSqliteDialect(options: SqliteDialectOptions): StoreDialect {
  if (options.path !== ':memory:') makeParents(dirname(options.path));
  const database = new BetterSqlite3(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  return {
    name: 'sqlite',
    db: createSqliteKysely(database),
    types: sqliteTypes,
    createPageUpsert: (table) => createSqlitePageUpsert(database, table),
    enqueueParents: createSqliteEnqueueParents(database),
    loadIdSet: async (_trx, values) => loadSqliteIdSet(database, values),
  };
}

/**
 * Creates the missing parent directories one level at a time. Node 20's `mkdirSync(recursive)`
 * never returns for some impossible paths (under /proc); one level at a time fails at once.
 */
function makeParents(directory: string): void {
  if (existsSync(directory)) return;
  const parent = dirname(directory);
  if (parent !== directory) makeParents(parent);
  mkdirSync(directory);
}
