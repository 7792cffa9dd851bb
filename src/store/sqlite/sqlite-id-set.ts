import type BetterSqlite3 from 'better-sqlite3';
import { type IdSetEntry, idSetPair, idSetTable } from '../store-dialect.js';

/**
 * Loads an id set into a temporary table of this connection (a giant IN list would hit SQLite's
 * parameter limit). The table outlives the transaction; its content is replaced on the next load.
 */
export function loadSqliteIdSet(database: BetterSqlite3.Database, entries: Iterable<IdSetEntry>): void {
  database.exec(
    `CREATE TEMP TABLE IF NOT EXISTS ${idSetTable} (value TEXT NOT NULL, scope TEXT NOT NULL, PRIMARY KEY (value, scope)) WITHOUT ROWID`,
  );
  database.exec(`DELETE FROM temp.${idSetTable}`);
  const insert = database.prepare(`INSERT OR IGNORE INTO temp.${idSetTable} (scope, value) VALUES (?, ?)`);
  for (const entry of entries) insert.run(idSetPair(entry));
}
