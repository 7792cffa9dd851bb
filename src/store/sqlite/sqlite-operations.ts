// The SQLite connection's operations (see sqlite-thread.ts): one better-sqlite3 connection,
// statements prepared once (a bounded cache). The thread runs them for every message; the
// starting thread runs the same ones on a connection of its own until the thread is up. It imports
// only types and a function that imports nothing, so the thread's module bundles on its own.
import type BetterSqlite3 from 'better-sqlite3';
import type { PageWorkResult } from '../store-dialect.js';
import type { UpsertCounts } from '../store-types.js';
import { valuesAtPath } from '../values-at-path.js';
import type { PageMessage, ReceivedData, Statement, StatementResult, UpsertWork } from './sqlite-messages.js';

/** One operation of a message, by name. */
export interface SqliteOperations {
  query(statement: Statement): StatementResult;
  upsert(work: UpsertWork): UpsertCounts;
  page(message: PageMessage): PageWorkResult;
  loadIdSet(input: { table: string; pairs: ReadonlyArray<readonly [string, string]> }): void;
  close(): void;
}

export interface SqliteConnectionOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
}

type Statements = BetterSqlite3.Statement<unknown[], unknown>;

const maxPrepared = 500;

/**
 * Opens the file in WAL mode with synchronous=NORMAL (durable at page-transaction granularity). A
 * failure is a plain Error naming SQLite's answer: a SqliteError thrown on the thread reaches the
 * starting thread as `{code}` only.
 */
export function openSqliteConnection(
  Database: typeof BetterSqlite3,
  options: SqliteConnectionOptions,
): BetterSqlite3.Database {
  try {
    const db = new Database(options.path, { timeout: options.busyTimeoutMs });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    registerValuesAt(db);
    return db;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    throw new Error(`${message ?? 'SQLite could not open the file'}${code ? ` (${code})` : ''}`);
  }
}

/** The SQL function `valuesAt` of sqlite-types.ts names: `valuesAtPath` of a JSON text, as a JSON array. */
export const valuesAtFunction = 'tms_values_at';

function registerValuesAt(db: BetterSqlite3.Database): void {
  const readers = new Map<string, (record: unknown) => string[]>();
  db.function(valuesAtFunction, { deterministic: true }, (json: unknown, path: unknown) => {
    let read = readers.get(path as string);
    if (!read) {
      read = valuesAtPath(path as string);
      readers.set(path as string, read);
    }
    return JSON.stringify(read(JSON.parse(json as string)));
  });
}

export function sqliteOperations(db: BetterSqlite3.Database): SqliteOperations {
  const cache = new Map<string, Statements>();

  function prepared(sql: string): Statements {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      if (cache.size >= maxPrepared) cache.delete(cache.keys().next().value!);
      cache.set(sql, statement);
    }
    return statement;
  }

  function query({ sql, params }: Statement): StatementResult {
    const statement = prepared(sql);
    if (statement.reader) return { rows: statement.all(params) };
    const { changes, lastInsertRowid } = statement.run(params);
    return { changes, lastInsertRowid };
  }

  /**
   * Runs a page upsert with `run`, `work.batch.rows` rows per statement and the rest one by one (no
   * RETURNING: a statement that returns nothing costs the thread a quarter less, BENCHMARKS.md). A
   * row the statement did not change was guarded: older than the stored one (stale), or unchanged;
   * only a statement that changed fewer rows than it had reads its rows' stored sequences to tell
   * which. Of the rows it changed, the inserted ones are what the table's highest rowid grew by:
   * SQLite gives a new row the highest rowid + 1 (no AUTOINCREMENT), and the page's transaction
   * holds the write lock; triggers writing other tables change neither this table's rowids nor
   * `changes`.
   */
  function upsert(work: UpsertWork): UpsertCounts {
    const highest = prepared(work.highestSql);
    const before = (highest.get() as { highest: number | null }).highest ?? 0;
    const { width, varying, values } = work;
    const total = values.length / varying.length;
    const single = { statement: prepared(work.upsertSql), params: paramsFor(work, 1), rows: 1 };
    const batch = work.batch && {
      statement: prepared(work.batch.sql),
      params: paramsFor(work, work.batch.rows),
      rows: work.batch.rows,
    };
    let changed = 0;
    let staleSkipped = 0;
    for (let row = 0; row < total; ) {
      const { statement, params, rows } = batch && total - row >= batch.rows ? batch : single;
      for (let i = 0; i < rows; i++) bindRow(work, params, i * width, row + i);
      const changes = statement.run(params).changes;
      changed += changes;
      if (changes < rows) staleSkipped += staleRows(work, params, rows);
      row += rows;
    }
    const inserted = changed === 0 ? 0 : (highest.get() as { highest: number }).highest - before;
    return { inserted, updated: changed - inserted, unchanged: total - changed - staleSkipped, staleSkipped };
  }

  /** How many of a statement's rows the stored rows are newer than (after it ran: a changed row holds its own sequence). */
  function staleRows(work: UpsertWork, params: readonly unknown[], rows: number): number {
    const stored = prepared(work.sequenceSql);
    let stale = 0;
    for (let i = 0; i < rows; i++) {
      const offset = i * work.width;
      const sequence = params[offset + work.sequenceAt] as number | null;
      if (sequence === null) continue;
      const key = work.keyAt.map((at) => params[offset + at]);
      if (((stored.get(key) as { sequence: number } | undefined)?.sequence ?? -1) > sequence) stale++;
    }
    return stale;
  }

  // The pages committed on this connection lately, by number: a page sent behind another begins
  // only if that one committed here (write-page.ts, `commitEarly`). A run has at most a few pages
  // sent and not committed (partition-run.ts, `pagesInFlight`): the last few are all it needs.
  const committed = new Set<number>();
  const remembered = 64;

  /** A page's whole transaction (`PageWork`): growth, upsert, statements, checks, transition. */
  function page({
    growth,
    before,
    upsert: work,
    statements,
    check,
    transition,
    rollback,
    order,
  }: PageMessage) {
    if (order?.after !== undefined && !committed.has(order.after)) return { refused: 'early' as const };
    db.exec('BEGIN IMMEDIATE');
    try {
      const refuse = (refused: 'schema' | 'state') => {
        db.exec('ROLLBACK');
        return { refused };
      };
      if (growth) {
        if (prepared(growth.claim.sql).get(growth.claim.params) === undefined) return refuse('schema');
        for (const { sql, params } of growth.statements) prepared(sql).run(params);
      }
      // First: the write lock is held from BEGIN IMMEDIATE, and a version that went back (a growth
      // rolled back) means columns the upsert names are missing.
      if (check && prepared(check.sql).get(check.params) === undefined) return refuse('schema');
      for (const { sql, params } of before) prepared(sql).run(params);
      const counts = upsert(work);
      for (const { sql, params } of statements) prepared(sql).run(params);
      const transitionRow = transition ? prepared(transition.sql).get(transition.params) : undefined;
      if (transition !== undefined && transitionRow === undefined) return refuse('state');
      db.exec(rollback ? 'ROLLBACK' : 'COMMIT');
      if (order && !rollback) {
        committed.add(order.page);
        if (committed.size > remembered) committed.delete(committed.values().next().value!);
      }
      return { refused: false as const, counts, transitionRow };
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Fills the connection's temporary id set with (scope, value) pairs, replacing what it held. */
  function loadIdSet({ table, pairs }: { table: string; pairs: ReadonlyArray<readonly [string, string]> }) {
    db.exec(
      `CREATE TEMP TABLE IF NOT EXISTS ${table} (value TEXT NOT NULL, scope TEXT NOT NULL, PRIMARY KEY (value, scope)) WITHOUT ROWID`,
    );
    db.exec(`DELETE FROM temp.${table}`);
    const insert = prepared(`INSERT OR IGNORE INTO temp.${table} (scope, value) VALUES (?, ?)`);
    for (const pair of pairs) insert.run(pair);
  }

  return { query, upsert, page, loadIdSet, close: () => db.close() };
}

/** Parameters for `rows` rows of the upsert, with the page's constants in place. */
function paramsFor(work: UpsertWork, rows: number): unknown[] {
  const params: unknown[] = new Array(rows * work.width);
  for (let i = 0; i < rows; i++)
    for (const [at, value] of work.constants) params[i * work.width + at] = value;
  return params;
}

/** Puts the page's row `row` into `params` from `offset` on (the constants are there already). */
function bindRow(work: UpsertWork, params: unknown[], offset: number, row: number): void {
  const { varying, values, received } = work;
  const from = row * varying.length;
  for (let i = 0; i < varying.length; i++) params[offset + varying[i]!] = values[from + i];
  if (received) {
    const at = offset + received.dataAt;
    params[at] = receivedData(received, params[at] as number);
  }
}

/** A record's `data` cut from the answer's text: the slice of the item at `position`. */
function receivedData(received: ReceivedData, position: number): string {
  return received.text.slice(received.slices[position * 2], received.slices[position * 2 + 1]);
}
