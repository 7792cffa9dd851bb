import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { PageWorkResult, UpsertCounts } from '../store-dialect.js';
import { threadScript } from './sqlite-thread-script.js';

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

/** A page's transaction, run whole on the thread (see `StoreDialect.commitPageWork` and `PageWork`). */
export interface PageMessage {
  readonly growth: { readonly claim: Statement; readonly statements: readonly Statement[] } | undefined;
  readonly upsert: UpsertWork;
  readonly statements: readonly Statement[];
  readonly check: Statement | undefined;
  readonly transition: Statement | undefined;
  readonly rollback: boolean;
}

/**
 * The SQLite connection, on its own thread. better-sqlite3 is synchronous: on the main thread
 * every page write stopped the fetching and parsing of the next page (the largest lever measured,
 * BENCHMARKS.md, "What moved the figures"). Statements run in the order sent; the caller
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
 * Starts the thread (its code: sqlite-thread-worker.ts) and opens the file there (WAL,
 * synchronous=NORMAL). An open failure surfaces on the first call, as the store's ping.
 */
export function startSqliteThread(options: SqliteThreadOptions): SqliteThread {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  };
  const starting = threadScript().then((script) => {
    const workerData = { driverPath, ...options };
    const worker =
      'file' in script
        ? new Worker(script.file, { workerData })
        : new Worker(script.code, { eval: true, workerData });
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
    return worker;
  });
  starting.catch((error: Error) => fail(error));
  const call = async <T>(op: string, args: unknown): Promise<T> => {
    const worker = await starting;
    if (failure) throw failure;
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
      await (await starting).terminate();
    },
  };
}
