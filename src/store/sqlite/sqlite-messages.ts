import type { PageWorkResult } from '../store-dialect.js';
import type { UpsertCounts } from '../store-types.js';

/**
 * What the SQLite thread (sqlite-thread.ts) and the operations it runs (sqlite-operations.ts) pass
 * between them: statements, page upserts and page transactions, and the thread as its callers see it.
 */

/** What a statement gave: its rows (a reader), or what it changed. */
export type StatementResult =
  | { readonly rows: unknown[] }
  | { readonly changes: number; readonly lastInsertRowid: number | bigint };

/**
 * A page upsert for the thread: the statements, and every row's bound values in one flat array (a
 * row is `rowWidth` values; the page's constants go once in `constants`): one array for the whole
 * page clones in a fraction of the time of an array per row (BENCHMARKS.md, the whole-process rows).
 */
export interface UpsertWork {
  /** `INSERT ... ON CONFLICT DO UPDATE ... WHERE <guards>` of one row (returns nothing: counts from `changes`). */
  readonly upsertSql: string;
  /** The same statement for `rows` rows at once, for all but a page's last few rows; undefined: one at a time. */
  readonly batch: { readonly sql: string; readonly rows: number } | undefined;
  /** `SELECT "sequence" ... WHERE <key>` (scope first when scoped). */
  readonly sequenceSql: string;
  /** `SELECT max(rowid) AS highest FROM <table>`. */
  readonly highestSql: string;
  /** Bound values of the upsert per row. */
  readonly width: number;
  /** Values the same on every row of the page: [position, value]. */
  readonly constants: ReadonlyArray<readonly [number, unknown]>;
  /** The other positions, in the order each row's values come in `values`. */
  readonly varying: readonly number[];
  /** `varying.length` values per row. */
  readonly values: readonly unknown[];
  /** Positions of `sequenceSql`'s key values, and of the record's sequence. */
  readonly keyAt: readonly number[];
  readonly sequenceAt: number;
  /**
   * When set, the rows' `data` are slices of the answer's text (item-slices.ts): each row holds at
   * `dataAt` its record's position in the answer instead. @default undefined
   */
  readonly received?: ReceivedData | undefined;
}

/** The answer a page's records were parsed from, and where each record is in it. */
export interface ReceivedData {
  readonly text: string;
  /** Start and end of each item: [start0, end0, start1, end1, ...]. */
  readonly slices: Int32Array;
  /** The position of `data` among a row's parameters. */
  readonly dataAt: number;
}

/** A compiled statement for the thread. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** A page's transaction, run whole on the thread (see `StoreDialect.commitPageWork` and `PageWork`). */
export interface PageMessage {
  readonly growth: { readonly claim: Statement; readonly statements: readonly Statement[] } | undefined;
  readonly before: readonly Statement[];
  readonly upsert: UpsertWork;
  readonly statements: readonly Statement[];
  readonly check: Statement | undefined;
  readonly transition: Statement | undefined;
  readonly rollback: boolean;
  /** The page's number, and the page that must have committed before it here (`PageWork.order`). */
  readonly order: { readonly page: number; readonly after: number | undefined } | undefined;
}

/**
 * The SQLite connection, on its own thread. better-sqlite3 is synchronous: on the main thread
 * every page write stopped the fetching and parsing of the next page (the largest lever measured,
 * docs/performance-history.md, "What moved the figures"). Statements run in the order sent; the caller
 * (Kysely's driver) holds a mutex for transactions, exactly as with one connection in-thread.
 */
export interface SqliteThread {
  /**
   * One statement. `outsideTransaction`: no transaction of the caller is open, so a read, or a
   * data write while the thread has nothing in hand, may run on this thread's own connection
   * instead (`runHere`). @default false
   */
  query(sql: string, params: readonly unknown[], outsideTransaction?: boolean): Promise<StatementResult>;
  upsert(work: UpsertWork): Promise<UpsertCounts>;
  /** BEGIN IMMEDIATE, the upsert, the statements, the transition (no row: rollback), COMMIT. */
  page(message: PageMessage): Promise<PageWorkResult>;
  /** Fills the temporary id set (see `idSetTable`) with (scope, value) pairs. */
  loadIdSet(table: string, pairs: ReadonlyArray<readonly [string, string]>): Promise<void>;
  /** Settles once the thread has opened the file and takes the operations (or failed to start). */
  started(): Promise<void>;
  close(): Promise<void>;
}
