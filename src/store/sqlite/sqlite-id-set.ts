import type BetterSqlite3 from 'better-sqlite3';
import { idSetTable } from '../store-dialect.js';

/**
 * Loads an id set into a temporary table of this connection (a giant IN list would hit SQLite's
 * parameter limit). The table outlives the transaction; its content is replaced on the next load.
 */
export function loadSqliteIdSet(database: BetterSqlite3.Database, values: Iterable<string>): void {
  database.exec(`CREATE TEMP TABLE IF NOT EXISTS ${idSetTable} (value TEXT PRIMARY KEY) WITHOUT ROWID`);
  database.exec(`DELETE FROM temp.${idSetTable}`);
  const insert = database.prepare(`INSERT OR IGNORE INTO temp.${idSetTable} (value) VALUES (?)`);
  for (const value of values) insert.run(value);
}
