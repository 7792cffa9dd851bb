import type { PageUpsert, PreparedUpsert } from '../store-dialect.js';
import type { StreamTable } from '../stream-tables.js';
import { conflictClause, quote, writtenColumns } from '../upsert-sql.js';
import type { SqliteThread, UpsertWork } from './sqlite-thread.js';
import { sqliteTypes } from './sqlite-types.js';

/**
 * The SQLite page upsert: one prepared statement per table, run per row on the SQLite thread
 * inside the caller's transaction: the fastest path measured (BENCHMARKS.md), where the query
 * builder is measurably slower. The values are bound here, on the main thread, and sent as one message.
 * `RETURNING rowid` tells the outcome: no row = guarded (unchanged or stale); a rowid above the
 * table's highest before the statement = inserted (keys are unique within a scope's rows).
 */
/** A prepared upsert that also carries its work, so a whole page can go to the thread as one message. */
export type ThreadUpsert = PreparedUpsert & { readonly work: UpsertWork };

export function createSqlitePageUpsert(thread: SqliteThread, table: StreamTable): PageUpsert {
  const name = quote(table.name);
  const columns = writtenColumns(table);
  const scopeFilter = table.scopeColumn ? `${quote(table.scopeColumn)} = ? AND ` : '';
  const statements: Omit<UpsertWork, 'rows'> = {
    upsertSql:
      `INSERT INTO ${name} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ` +
      `${conflictClause(table, name, 'IS NOT')} RETURNING rowid`,
    sequenceSql: `SELECT "sequence" FROM ${name} WHERE ${scopeFilter}"id" = ?`,
    highestSql: `SELECT max(rowid) AS highest FROM ${name}`,
  };
  const at = new Map(columns.map((column, index) => [column, index]));
  const firstTyped = columns.length - table.columns.length;
  const [dataAt, sequenceAt, scopeAt] = [
    at.get('data')!,
    at.get('sequence')!,
    at.get(table.scopeColumn ?? ''),
  ];
  const [syncedAt, deletedAt, reasonAt] = [
    at.get('synced_at')!,
    at.get('deleted_at')!,
    at.get('deleted_reason')!,
  ];

  return (page) => {
    const rows: Array<UpsertWork['rows'][number]> = [];
    for (const { scope, rows: scopeRows } of page.groups) {
      for (const row of scopeRows) {
        const params: unknown[] = new Array(columns.length);
        params[0] = row.id;
        if (scopeAt !== undefined) params[scopeAt] = scope;
        params[dataAt] = JSON.stringify(row.record);
        params[sequenceAt] = row.sequence;
        params[syncedAt] = page.syncedAt;
        params[deletedAt] = page.deletedAt;
        params[reasonAt] = page.deletedReason;
        for (let i = 0; i < row.values.length; i++)
          params[firstTyped + i] = sqliteTypes.encode(row.values[i]!);
        rows.push([params, scope === null ? [row.id] : [scope, row.id], row.sequence]);
      }
    }
    const work: UpsertWork = { ...statements, rows };
    return Object.assign(() => thread.upsert(work), { work });
  };
}
