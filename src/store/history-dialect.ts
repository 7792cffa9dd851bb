import type { CompiledQuery } from 'kysely';
import type { StreamTable } from './stream-tables.js';

/**
 * What differs between the databases in history mode (docs/history.md): the triggers that version
 * a table's rows, the view, and how a transaction tells them which run writes.
 */
export interface HistorySql {
  /** Once, idempotent: what history needs beside the tables (SQLite's run context row). */
  bookkeeping(): CompiledQuery[];
  /** Adds the open version's bookkeeping to the stream table (`historyColumns`), absent ones only. */
  addBookkeeping(table: StreamTable, missing: readonly string[]): CompiledQuery[];
  /** (Re)defines the triggers and the view for the table's current columns, history on since `since`. */
  define(table: StreamTable, since: string): CompiledQuery[];
  /** Closes every open version at `now`, drops the triggers, and defines the view over the versions table only (history off). */
  undefine(table: StreamTable, since: string, now: string): CompiledQuery[];
  /** First in a transaction writing a table with history: the run that writes (null: none). */
  runContext(runId: number | null): CompiledQuery[];
  /** Last in that transaction. */
  endContext(): CompiledQuery[];
}
