import type { PageUpsert, PreparedUpsert } from '../store-dialect.js';
import { dataJsonOf } from '../stored-record.js';
import type { StreamTable } from '../stream-tables.js';
import { conflictClause, quote, writtenColumns } from '../upsert-sql.js';
import type { SqliteThread, UpsertWork } from './sqlite-thread.js';
import { sqliteTypes } from './sqlite-types.js';

/**
 * The SQLite page upsert: one prepared statement per table, run per row on the SQLite thread
 * inside the caller's transaction: the fastest path measured (BENCHMARKS.md), where the query
 * builder is measurably slower. The values are bound here, on the main thread, and sent as one message.
 * The thread tells the outcome from each row's `changes` and the table's highest rowid
 * (sqlite-operations.ts).
 */
/** A prepared upsert that also carries its work, so a whole page can go to the thread as one message. */
export type ThreadUpsert = PreparedUpsert & { readonly work: UpsertWork };

export function createSqlitePageUpsert(thread: SqliteThread, table: StreamTable): PageUpsert {
  const name = quote(table.name);
  const written = writtenColumns(table);
  // History mode (docs/history.md): an inserted row records the run that saw it (updates leave it to the trigger).
  const columns = table.history === null ? written : [...written, 'history_run'];
  const scopeFilter = table.scopeColumn ? `${quote(table.scopeColumn)} = ? AND ` : '';
  const statements = {
    upsertSql:
      `INSERT INTO ${name} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ` +
      `${conflictClause(table, name, 'IS NOT')}`,
    sequenceSql: `SELECT "sequence" FROM ${name} WHERE ${scopeFilter}"id" = ?`,
    highestSql: `SELECT max(rowid) AS highest FROM ${name}`,
  };
  const at = new Map(columns.map((column, index) => [column, index]));
  const firstTyped = written.length - table.columns.length;
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
  // Each row's values in the order the thread puts them back: key, scope, data, sequence, typed.
  const varying = [0, ...(scopeAt === undefined ? [] : [scopeAt]), dataAt, sequenceAt];
  for (let i = 0; i < table.columns.length; i++) varying.push(firstTyped + i);
  const keyAt = scopeAt === undefined ? [0] : [scopeAt, 0];

  return (page) => {
    const values: unknown[] = [];
    for (const { scope, rows } of page.groups) {
      for (const row of rows) {
        values.push(row.id);
        if (scopeAt !== undefined) values.push(scope);
        values.push(dataJsonOf(table.name, row.id, row.record), row.sequence);
        // Exactly one value per typed column, so every row keeps its place in the flat array.
        for (let i = 0; i < table.columns.length; i++) values.push(sqliteTypes.encode(row.values[i]!));
      }
    }
    const work: UpsertWork = {
      ...statements,
      width: columns.length,
      constants: [
        [syncedAt, page.syncedAt],
        [deletedAt, page.deletedAt],
        [reasonAt, page.deletedReason],
        ...(table.history === null ? [] : [[written.length, page.runId ?? null] as [number, unknown]]),
      ],
      varying,
      values,
      keyAt,
      sequenceAt,
    };
    return Object.assign(() => thread.upsert(work), { work });
  };
}
