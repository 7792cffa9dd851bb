import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { PageWorkResult, UpsertCounts } from '../store-dialect.js';

/** What a statement gave: its rows (a reader), or what it changed. */
export type StatementResult =
  | { readonly rows: unknown[] }
  | { readonly changes: number; readonly lastInsertRowid: number | bigint };

/** A page upsert for the thread: the statements and, per row, its bound values and guard key. */
export interface UpsertWork {
  /** `INSERT ... ON CONFLICT DO UPDATE ... WHERE <guards> RETURNING rowid`. */
  readonly upsertSql: string;
  /** `SELECT "sequence" ... WHERE <key>` (scope first when scoped). */
  readonly sequenceSql: string;
  /** `SELECT max(rowid) AS highest FROM <table>`. */
  readonly highestSql: string;
  /** Per row: [bound values, key values of `sequenceSql`, the record's sequence]. */
  readonly rows: ReadonlyArray<readonly [readonly unknown[], readonly string[], number | null]>;
}

/** A compiled statement for the thread. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** A page's transaction, run whole on the thread (see `StoreDialect.runPage`). */
export interface PageMessage {
  readonly upsert: UpsertWork;
  readonly statements: readonly Statement[];
  readonly transition: Statement | undefined;
  readonly rollback: boolean;
}

/**
 * The SQLite connection, on its own thread. better-sqlite3 is synchronous: on the main thread
 * every page write stopped the fetching, parsing and validation of the next page (PERF-NOTES:
 * writes on their own thread, +40% end to end). Statements run in the order sent; the caller
 * (Kysely's driver) holds a mutex for transactions, exactly as with one connection in-thread.
 */
export interface SqliteThread {
  query(sql: string, params: readonly unknown[]): Promise<StatementResult>;
  upsert(work: UpsertWork): Promise<UpsertCounts>;
  /** BEGIN IMMEDIATE, the upsert, the statements, the transition (no row: rollback), COMMIT. */
  page(message: PageMessage): Promise<PageWorkResult>;
  /** Fills the temporary id set (see `idSetTable`) with (scope, value) pairs. */
  loadIdSet(table: string, pairs: ReadonlyArray<readonly [string, string]>): Promise<void>;
  close(): Promise<void>;
}

export interface SqliteThreadOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
}

interface Reply {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { name: string; message: string; code?: string };
}

/**
 * Starts the thread and opens the file there (WAL, synchronous=NORMAL). An open failure surfaces
 * on the first call, as the store's ping.
 */
export function startSqliteThread(options: SqliteThreadOptions): SqliteThread {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  // Evaluated from source: the thread's code must load the same way from the sources (tsx) and
  // from the bundle bin/tms-sync.js runs, where no separate file sits beside this module.
  const worker = new Worker(threadSource, { eval: true, workerData: { driverPath, ...options } });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failure: Error | undefined;
  // Referenced only while a call waits, so an idle store never keeps the process alive.
  worker.unref();
  worker.on('message', (reply: Reply) => {
    const call = pending.get(reply.id);
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.error) call?.reject(Object.assign(new Error(reply.error.message), reply.error));
    else call?.resolve(reply.result);
  });
  worker.on('error', (error) => fail(error));
  worker.on('exit', (code) => fail(new Error(`the SQLite thread exited (code ${code})`)));
  const fail = (error: Error) => {
    failure ??= error;
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  };
  const call = <T>(op: string, args: unknown): Promise<T> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    worker.ref();
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, op, args });
    });
  };
  return {
    query: (sql, params) => call('query', { sql, params }),
    upsert: (work) => call('upsert', work),
    page: (message) => call('page', message),
    loadIdSet: (table, pairs) => call('loadIdSet', { table, pairs }),
    async close() {
      if (failure) return;
      await call('close', null);
      await worker.terminate();
    },
  };
}

/** The thread: one better-sqlite3 connection, statements prepared once (a bounded cache). */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
const statements = new Map();
function prepared(sql) {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    if (statements.size >= 500) statements.delete(statements.keys().next().value);
    statements.set(sql, statement);
  }
  return statement;
}
const ops = {
  query({ sql, params }) {
    const statement = prepared(sql);
    if (statement.reader) return { rows: statement.all(params) };
    const { changes, lastInsertRowid } = statement.run(params);
    return { changes, lastInsertRowid };
  },
  upsert({ upsertSql, sequenceSql, highestSql, rows }) {
    const upsert = prepared(upsertSql);
    const stored = prepared(sequenceSql);
    const before = prepared(highestSql).get().highest ?? 0;
    const counts = { inserted: 0, updated: 0, unchanged: 0, staleSkipped: 0 };
    for (const [params, key, sequence] of rows) {
      const written = upsert.get(params);
      if (written !== undefined) {
        if (written.rowid > before) counts.inserted++;
        else counts.updated++;
      } else if (sequence !== null && (stored.get(key)?.sequence ?? -1) > sequence) {
        counts.staleSkipped++;
      } else {
        counts.unchanged++;
      }
    }
    return counts;
  },
  page({ upsert, statements, transition, rollback }) {
    db.exec('BEGIN IMMEDIATE');
    try {
      const counts = ops.upsert(upsert);
      for (const { sql, params } of statements) prepared(sql).run(params);
      const transitionRow = transition ? prepared(transition.sql).get(transition.params) : undefined;
      const refused = transition !== undefined && transitionRow === undefined;
      db.exec(rollback || refused ? 'ROLLBACK' : 'COMMIT');
      return refused ? { refused: true } : { refused: false, counts, transitionRow };
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  },
  loadIdSet({ table, pairs }) {
    db.exec('CREATE TEMP TABLE IF NOT EXISTS ' + table + ' (value TEXT NOT NULL, scope TEXT NOT NULL, PRIMARY KEY (value, scope)) WITHOUT ROWID');
    db.exec('DELETE FROM temp.' + table);
    const insert = prepared('INSERT OR IGNORE INTO temp.' + table + ' (scope, value) VALUES (?, ?)');
    for (const pair of pairs) insert.run(pair);
  },
  close() {
    db.close();
  },
};
parentPort.on('message', ({ id, op, args }) => {
  try {
    parentPort.postMessage({ id, result: ops[op](args) });
  } catch (error) {
    parentPort.postMessage({ id, error: { name: error.name, message: error.message, code: error.code } });
  }
});
`;
