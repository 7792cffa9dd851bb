import type { Insertable, Kysely } from 'kysely';
import type { StoreDatabase, SyncRunsTable } from './database.js';
import { compiledOnce } from './statement-once.js';

/**
 * The rows of runs that wrote nothing else, recorded together: those ending in the same turn of
 * the event loop go in one statement (an idle cycle ends thousands of such runs; one commit each
 * was most of what a quiet partition cost the store). A run waits only for the end of its turn.
 */
export interface EndedRuns {
  /** Writes the run's row with the others of this turn; its id. */
  record(row: Insertable<SyncRunsTable>): Promise<number>;
}

interface Waiting {
  readonly row: Insertable<SyncRunsTable>;
  resolve(id: number): void;
  reject(error: unknown): void;
}

/** Rows per statement at most: well under every dialect's limit on bound parameters. */
const maxRows = 200;

export function createEndedRuns(db: Kysely<StoreDatabase>): EndedRuns {
  let waiting: Waiting[] = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    // A partition's rows are told apart by stream and partition: two runs of one partition in
    // one statement (never from the engine, which runs a partition once at a time) go one by one.
    // A statement's rows share their columns (one text per count of rows and columns).
    const seen = new Set<string>();
    for (let start = 0; start < batch.length; ) {
      const group: Waiting[] = [];
      const columns = columnsOf(batch[start]!.row);
      seen.clear();
      while (start < batch.length && group.length < maxRows) {
        const { row } = batch[start]!;
        const key = keyOf(row);
        if (seen.has(key) || columnsOf(row) !== columns) break;
        seen.add(key);
        group.push(batch[start++]!);
      }
      void write(db, group, columns);
    }
  };
  return {
    record(row) {
      return new Promise<number>((resolve, reject) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ row, resolve, reject });
      });
    },
  };
}

/**
 * The insert of the rows of runs with these columns, its values the rows' row after row, built and
 * compiled by Kysely once per number of rows (statement-once.ts): an idle cycle of 5,000
 * partitions wrote ~1,100 such statements, and building each cost more than running it.
 */
function insertOf(columns: readonly string[]) {
  return compiledOnce((db, values: unknown[]) => {
    const rows: Record<string, unknown>[] = [];
    for (let at = 0; at < values.length; at += columns.length)
      rows.push(Object.fromEntries(columns.map((column, offset) => [column, values[at + offset]])));
    return db
      .insertInto('sync_runs')
      .values(rows as Insertable<SyncRunsTable>[])
      .returning(['id', 'stream', 'partition']);
  });
}

/** The insert of each set of columns rows come with (one: `endedRunValues`'s). */
const inserts = new Map<string, ReturnType<typeof insertOf>>();

async function write(db: Kysely<StoreDatabase>, group: readonly Waiting[], columns: string): Promise<void> {
  try {
    let insert = inserts.get(columns);
    if (!insert) {
      insert = insertOf(columns.split(','));
      inserts.set(columns, insert);
    }
    const values: unknown[] = [];
    for (const { row } of group) for (const value of Object.values(row)) values.push(value);
    const { rows: written } = await db.executeQuery(insert(db, values, String(group.length)));
    const ids = new Map(written.map((row) => [keyOf(row), Number(row.id)]));
    for (const entry of group) {
      const id = ids.get(keyOf(entry.row));
      if (id === undefined) entry.reject(new Error(`sync_runs: no id returned for ${keyOf(entry.row)}`));
      else entry.resolve(id);
    }
  } catch (error) {
    for (const entry of group) entry.reject(error);
  }
}

function columnsOf(row: Insertable<SyncRunsTable>): string {
  return Object.keys(row).join(',');
}

function keyOf(row: { readonly stream: string; readonly partition: string }): string {
  return `${row.stream}/${row.partition}`;
}
