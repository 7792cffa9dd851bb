import type { Kysely } from 'kysely';
import type { StoreDatabase } from './database.js';
import type { PartitionOverview, RunResult, RunTrigger } from './store-types.js';
import { toStoredDate } from './stored-values.js';
import { partitionsWithLatestRun } from './sync-runs.js';

/**
 * What `status` shows of every stream partition the store knows, in two narrow reads (no strategy
 * state decoded, no sort): its watermark and whether a cycle is in progress, its latest run and
 * its last success. At 20,000 partitions this replaced a whole-state read, a whole-run read sorted
 * in a temporary B-tree and a read of the successes (~240 -> ~100 ms on SQLite).
 */
export async function partitionOverview(db: Kysely<StoreDatabase>): Promise<PartitionOverview[]> {
  const [states, runs] = await Promise.all([
    db
      .selectFrom('sync_state')
      .select(['stream', 'partition', 'watermark'])
      .select((eb) => eb('cursor', 'is not', null).as('in_progress'))
      .execute(),
    partitionsWithLatestRun(db)
      .select([
        'partition_runs.stream',
        'partition_runs.partition',
        'partition_runs.last_success_at',
        'sync_runs.id',
        'sync_runs.trigger',
        'sync_runs.started_at',
        'sync_runs.finished_at',
        'sync_runs.pages',
        'sync_runs.inserted',
        'sync_runs.updated',
        'sync_runs.deleted',
        'sync_runs.drift',
        'sync_runs.held_deletes',
        'sync_runs.result',
        'sync_runs.error',
      ])
      .execute(),
  ]);
  const key = (row: { stream: string; partition: string }) => `${row.stream}\u0000${row.partition}`;
  const overview = new Map<string, PartitionOverview>();
  for (const row of states)
    overview.set(key(row), {
      stream: row.stream,
      partition: row.partition,
      watermark: row.watermark === null ? null : Number(row.watermark),
      cycleInProgress: Boolean(row.in_progress),
      lastRun: null,
      lastSuccessAt: null,
    });
  for (const row of runs) {
    const state = overview.get(key(row));
    overview.set(key(row), {
      stream: row.stream,
      partition: row.partition,
      watermark: state?.watermark ?? null,
      cycleInProgress: state?.cycleInProgress ?? false,
      lastRun:
        row.id === null
          ? null
          : {
              id: Number(row.id),
              trigger: row.trigger as RunTrigger,
              startedAt: toStoredDate(row.started_at)!,
              finishedAt: toStoredDate(row.finished_at),
              pages: row.pages!,
              inserted: row.inserted!,
              updated: row.updated!,
              deleted: row.deleted!,
              drift: Number(row.drift),
              held: Number(row.held_deletes),
              result: row.result as RunResult,
              error: row.error,
            },
      lastSuccessAt: toStoredDate(row.last_success_at),
    });
  }
  return [...overview.values()];
}
