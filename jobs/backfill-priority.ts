import type { SyncJobData } from './sync-job.js';

/**
 * The BullMQ priority of a backfill run. BullMQ hands out jobs without a priority before any
 * prioritized one, so incremental cycles (no priority) go before backfills of the same queue; a
 * backfill still waiting at its partition's next request joins their line (enqueue-run.ts).
 */
export const backfillPriority = 10;

/** Which runs are backfills; told of every finished run, so it learns without reading again. */
export interface BackfillClassifier {
  isBackfill(data: SyncJobData): Promise<boolean>;
  /** A run of the partition succeeded: no run of it is a backfill any more (unless `full`). */
  completed(data: Pick<SyncJobData, 'stream' | 'partition'>): void;
}

/**
 * A run is a backfill when it is `full`, or its partition has never completed a run. The
 * partitions that have are read once (`completedPartitions`, one query for all), then learnt from
 * each success; a failed read counts nothing as a backfill and reads again next time.
 */
export function backfillClassifier(
  completedPartitions: () => Promise<ReadonlyArray<Pick<SyncJobData, 'stream' | 'partition'>>>,
): BackfillClassifier {
  const key = (item: Pick<SyncJobData, 'stream' | 'partition'>) => `${item.stream}\u0000${item.partition}`;
  let known: Promise<Set<string> | undefined> | undefined;
  const completed = () => {
    known ??= completedPartitions().then(
      (items) => new Set(items.map(key)),
      () => {
        known = undefined;
        return undefined;
      },
    );
    return known;
  };
  return {
    async isBackfill(data) {
      if (data.full) return true;
      const set = await completed();
      return set !== undefined && !set.has(key(data));
    },
    completed(data) {
      void completed().then((set) => set?.add(key(data)));
    },
  };
}
