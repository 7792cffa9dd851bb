import type { PageUpsert, PageUpsertInput, PreparedUpsert } from '../store-dialect.js';
import { dataJsonOf } from '../stored-record.js';
import type { StreamTable } from '../stream-tables.js';
import { conflictClause, quote, writtenColumns } from '../upsert-sql.js';
import type { SqliteThread, UpsertWork } from './sqlite-thread.js';
import { sqliteTypes } from './sqlite-types.js';

/**
 * The SQLite page upsert: one prepared statement per table, run per row on the SQLite thread
 * inside the caller's transaction: the fastest path measured (BENCHMARKS.md), where the query
 * builder is measurably slower. The values are bound here, on the main thread, and sent as one
 * message; a page that comes with its answer's text sends that instead of serializing each
 * record, and the thread cuts each record's `data` from it.
 * The thread tells the outcome from each row's `changes` and the table's highest rowid
 * (sqlite-operations.ts).
 */
/**
 * A prepared upsert that also carries its work, so a whole page can go to the thread as one
 * message; `serialized` is the same work with every `data` serialized here, for a thread that
 * refused the answer's text.
 */
export type ThreadUpsert = PreparedUpsert & { readonly work: UpsertWork; serialized(): UpsertWork };

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
    const build = (received: PageUpsertInput['received']): UpsertWork => {
      const values: unknown[] = [];
      for (const { scope, rows } of page.groups) {
        for (const row of rows) {
          values.push(row.id);
          if (scopeAt !== undefined) values.push(scope);
          values.push(received ? row.position : dataJsonOf(table.name, row.id, row.record), row.sequence);
          // Exactly one value per typed column, so every row keeps its place in the flat array.
          for (let i = 0; i < table.columns.length; i++) values.push(sqliteTypes.encode(row.values[i]!));
        }
      }
      return {
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
        received: received && { text: received.text, path: received.path, count: received.count, dataAt },
      };
    };
    const received = usableReceived(page);
    const work = build(received);
    const serialized = () => (received ? build(undefined) : work);
    return Object.assign(() => thread.upsert(serialized()), { work, serialized });
  };
}

/**
 * The answer to cut `data` from, when there is one: not where a record holds U+0000 (stored as
 * the text of its text, stored-record.ts) or where rows come from more than one list.
 */
function usableReceived(page: PageUpsertInput): PageUpsertInput['received'] {
  const { received } = page;
  if (!received || page.groups.length !== 1 || received.text.includes('\\u0000')) return undefined;
  return received;
}
