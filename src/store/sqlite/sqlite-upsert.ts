import type BetterSqlite3 from 'better-sqlite3';
import type { PageUpsert, UpsertCounts } from '../store-dialect.js';
import type { StreamTable } from '../stream-tables.js';
import { conflictClause, quote, writtenColumns } from '../upsert-sql.js';
import { sqliteTypes } from './sqlite-types.js';

/**
 * The SQLite page upsert: one prepared statement per table, run per row inside the caller's
 * transaction (PERF-NOTES: the fastest path measured; the query builder costs ~20-30% here).
 * It runs synchronously on the connection whose transaction Kysely holds, so it joins it.
 * `RETURNING rowid` tells the outcome: no row = guarded (unchanged or stale); a rowid above the
 * table's highest before the statement = inserted (keys are unique within a scope's rows).
 */
export function createSqlitePageUpsert(database: BetterSqlite3.Database, table: StreamTable): PageUpsert {
  const name = quote(table.name);
  const columns = writtenColumns(table);
  const upsert = database
    .prepare<unknown[], number>(
      `INSERT INTO ${name} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ` +
        `${conflictClause(table, name, 'IS NOT')} RETURNING rowid`,
    )
    .pluck();
  const scopeFilter = table.scopeColumn ? `${quote(table.scopeColumn)} = ? AND ` : '';
  const storedSequence = database
    .prepare<unknown[], number | null>(`SELECT "sequence" FROM ${name} WHERE ${scopeFilter}"id" = ?`)
    .pluck();
  const highestRowid = database.prepare<[], number | null>(`SELECT max(rowid) FROM ${name}`).pluck();
  const at = new Map(columns.map((column, index) => [column, index]));
  const firstTyped = columns.length - table.columns.length;
  // One parameter array for every row: better-sqlite3 copies the values when it binds them.
  const params: unknown[] = new Array(columns.length);
  const key = (scope: string | null, id: string) => (scope === null ? [id] : [scope, id]);

  return async (_trx, page) => {
    const before = highestRowid.get() ?? 0;
    const counts = { inserted: 0, updated: 0, unchanged: 0, staleSkipped: 0 } satisfies UpsertCounts;
    params[at.get('synced_at')!] = page.syncedAt;
    params[at.get('deleted_at')!] = page.deletedAt;
    params[at.get('deleted_reason')!] = page.deletedReason;
    for (const { scope, rows } of page.groups) {
      if (table.scopeColumn) params[at.get(table.scopeColumn)!] = scope;
      for (const row of rows) {
        params[0] = row.id;
        params[at.get('data')!] = JSON.stringify(row.record);
        params[at.get('sequence')!] = row.sequence;
        for (let i = 0; i < row.values.length; i++)
          params[firstTyped + i] = sqliteTypes.encode(row.values[i]!);
        const rowid = upsert.get(params);
        if (rowid !== undefined) {
          if (rowid > before) counts.inserted++;
          else counts.updated++;
        } else if (row.sequence !== null && (storedSequence.get(key(scope, row.id)) ?? -1) > row.sequence) {
          counts.staleSkipped++;
        } else {
          counts.unchanged++;
        }
      }
    }
    return counts;
  };
}
