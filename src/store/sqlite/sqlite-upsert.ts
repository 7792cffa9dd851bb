import { itemSlices } from '../item-slices.js';
import type { PageUpsert, PageUpsertInput, PreparedUpsert } from '../store-dialect.js';
import { dataJsonOf } from '../stored-record.js';
import type { StreamTable } from '../stream-tables.js';
import { conflictClause, quote, writtenColumns } from '../upsert-sql.js';
import type { SqliteThread, UpsertWork } from './sqlite-messages.js';
import { sqliteTypes } from './sqlite-types.js';

/**
 * Rows per statement of a page upsert: eight rows to a statement cost the SQLite thread ~15% less
 * than one (docs/performance-history.md, "2026-11-24 (rows per statement)"), sixteen no less; a wide table gets
 * fewer, so a statement never binds more than 999 values (SQLite's historical limit).
 */
const rowsPerStatement = 8;
const maxBoundValues = 999;

/**
 * The SQLite page upsert: prepared statements per table, run on the SQLite thread inside the
 * caller's transaction, eight rows at a time and the rest one by one: the fastest path measured
 * (BENCHMARKS.md), where the query builder is measurably slower. The values are bound here, on the
 * main thread, and sent as one message; a page that comes with its answer's text sends that and
 * where each record is in it (item-slices.ts) instead of serializing each record, and the thread
 * cuts each `data` from it. The thread tells the outcome from each statement's `changes` and the
 * table's highest rowid (sqlite-operations.ts).
 */
/** A prepared upsert that also carries its work, so a whole page can go to the thread as one message. */
export type ThreadUpsert = PreparedUpsert & { readonly work: UpsertWork };

export function createSqlitePageUpsert(thread: SqliteThread, table: StreamTable): PageUpsert {
  const name = quote(table.name);
  const written = writtenColumns(table);
  // History mode (docs/history.md): an inserted row records the run that saw it (updates leave it to the trigger).
  const columns = table.history === null ? written : [...written, 'history_run'];
  const scopeFilter = table.scopeColumn ? `${quote(table.scopeColumn)} = ? AND ` : '';
  const insertSql = (rows: number) =>
    `INSERT INTO ${name} (${columns.map(quote).join(', ')}) ` +
    `VALUES ${Array(rows)
      .fill(`(${columns.map(() => '?').join(', ')})`)
      .join(', ')} ` +
    `${conflictClause(table, name, 'IS NOT')}`;
  const batchRows = Math.min(rowsPerStatement, Math.floor(maxBoundValues / columns.length));
  const statements = {
    upsertSql: insertSql(1),
    batch: batchRows > 1 ? { sql: insertSql(batchRows), rows: batchRows } : undefined,
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
    const slices = receivedSlices(page);
    // Built by push, packed: an array made with `new Array(n)` is holey, and a holey array is cloned
    // to the thread element by element, as a sparse one (whole process 3% slower, BENCHMARKS.md).
    const values: unknown[] = [];
    for (const { scope, rows } of page.groups) {
      for (const row of rows) {
        values.push(row.id);
        if (scopeAt !== undefined) values.push(scope);
        values.push(slices ? row.position : dataJsonOf(table.name, row.id, row.record), row.sequence);
        // Exactly one value per typed column, so every row keeps its place in the flat array.
        for (let i = 0; i < table.columns.length; i++) values.push(sqliteTypes.encode(row.values[i]!));
      }
    }
    const work: UpsertWork = {
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
      received: slices && { text: page.received!.text, slices, dataAt },
      ...statements,
    };
    return Object.assign(() => thread.upsert(work), { work });
  };
}

/**
 * Where each record is in the answer it was parsed from, when `data` can be cut from it (one list
 * of rows, no U+0000: such a record is stored as the text of its text, stored-record.ts).
 */
function receivedSlices(page: PageUpsertInput): Int32Array | undefined {
  const { received } = page;
  if (!received || page.groups.length !== 1 || received.text.includes('\\u0000')) return undefined;
  return itemSlices(received.text, received.path, received.count);
}
