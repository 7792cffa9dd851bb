import type { Insertable, Kysely } from 'kysely';
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
    const seen = new Set<string>();
    for (let start = 0; start < batch.length; ) {
      const group: Waiting[] = [];
      seen.clear();
      while (start < batch.length && group.length < maxRows) {
        const key = keyOf(batch[start]!.row);
        if (seen.has(key)) break;
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

async function write(db: Kysely<StoreDatabase>, group: readonly Waiting[]): Promise<void> {
  try {
    const written = await db
      .insertInto('sync_runs')
      .values(group.map((entry) => entry.row))
      .returning(['id', 'stream', 'partition'])
      .execute();
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

function keyOf(row: { readonly stream: string; readonly partition: string }): string {
  return `${row.stream}/${row.partition}`;
}
