import { type IdSetEntry, idSetPair, idSetTable } from '../store-dialect.js';
import type { SqliteThread } from './sqlite-messages.js';

/**
 * Loads an id set into a temporary table of the connection (a giant IN list would hit SQLite's
 * parameter limit). The table outlives the transaction; its content is replaced on the next load.
 */
export function loadSqliteIdSet(thread: SqliteThread, entries: Iterable<IdSetEntry>): Promise<void> {
  return thread.loadIdSet(idSetTable, Array.from(entries, idSetPair));
}
