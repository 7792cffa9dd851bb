import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import type { StoreDatabase, SyncRunsTable } from './database.js';

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
      void write(db, group);
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

/** The insert's text per database and shape (rows and columns). */
const insertTexts = new WeakMap<Kysely<StoreDatabase>, Map<string, string>>();

/**
 * The text of an insert of `count` rows of these columns, built and compiled by Kysely once per
 * shape: an idle cycle of 5,000 partitions wrote ~1,100 such statements, and building each cost
 * more than running it. Its parameters are the rows' values, row after row, in `columns` order.
 */
function insertText(db: Kysely<StoreDatabase>, count: number, columns: readonly string[]): string {
  let ofDb = insertTexts.get(db);
  if (!ofDb) {
    ofDb = new Map();
    insertTexts.set(db, ofDb);
  }
  const shape = `${count}:${columns.join(',')}`;
  let text = ofDb.get(shape);
  if (text === undefined) {
    const slot = (index: number) => `\u0000ended-runs:${index}`;
    const rows = Array.from({ length: count }, (_, row) =>
      Object.fromEntries(columns.map((column, at) => [column, slot(row * columns.length + at)])),
    );
    const query = db
      .insertInto('sync_runs')
      .values(rows as unknown as Insertable<SyncRunsTable>[])
      .returning(['id', 'stream', 'partition'])
      .compile();
    if (query.parameters.length !== count * columns.length || query.parameters.some((p, i) => p !== slot(i)))
      throw new Error('sync_runs: the insert does not take its values row after row');
    text = query.sql;
    ofDb.set(shape, text);
  }
  return text;
}

async function write(db: Kysely<StoreDatabase>, group: readonly Waiting[]): Promise<void> {
  try {
    const columns = Object.keys(group[0]!.row);
    const parameters: unknown[] = [];
    for (const { row } of group) for (const value of Object.values(row)) parameters.push(value);
    const query = CompiledQuery.raw(insertText(db, group.length, columns), parameters);
    const { rows: written } = await db.executeQuery<{ id: number; stream: string; partition: string }>(query);
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
