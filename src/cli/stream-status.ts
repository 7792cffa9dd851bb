import type { PartitionOverview, Store } from '../store/store.js';
import type { Selection, StreamPartition } from '../sync/select-partitions.js';

/** One line of `status`: what the store knows of a configured stream partition, and its lag. */
export interface StreamStatus extends PartitionOverview {
  /** Seconds since `lastSuccessAt`; null when no run ever succeeded ("never"). */
  readonly lagSeconds: number | null;
  /**
   * Child streams: parents waiting for their children's refresh (`everyParent`: all of them, after a
   * parent's full cycle); `leftParents` of them a run gave up on, `lastError` the latest reason.
   */
  readonly pending?: {
    readonly queuedParents: number;
    readonly everyParent: boolean;
    readonly leftParents: number;
    readonly lastError: string | null;
  };
}

/** The configured partitions' status, and what the store holds beyond them. */
export interface StatusReport {
  readonly partitions: StreamStatus[];
  /** Partitions the store has state or runs of that the configuration no longer lists (`tasks/9999`). */
  readonly unconfigured: string[];
  /** Streams left out because their configuration is missing here (no TMS_OPERATORS), with why. */
  readonly skipped: Selection['skipped'];
}

/**
 * The status of every configured partition (`configured`: what `sync` and the worker run, from
 * the same settings), in run order, a partition never run included. Partitions the store knows
 * that are not configured any more are only named, so `status` and the lag metrics neither show
 * nor alert on them.
 */
export async function readStatus(store: Store, now: Date, configured: Selection): Promise<StatusReport> {
  const [known, childWork] = await Promise.all([store.partitionOverview(), store.pendingChildWork()]);
  const label = (item: { stream: string; partition: string }) =>
    item.partition ? `${item.stream}/${item.partition}` : item.stream;
  const overviewOf = new Map(known.map((item) => [label(item), item]));
  const workOf = new Map(childWork.map((entry) => [entry.stream, entry]));
  const partitions = configured.partitions.map((item): StreamStatus => {
    const overview = overviewOf.get(label(item));
    const success = overview?.lastSuccessAt ?? null;
    const work = item.partition === '' ? workOf.get(item.stream) : undefined;
    return {
      stream: item.stream,
      partition: item.partition,
      watermark: overview?.watermark ?? null,
      cycleInProgress: overview?.cycleInProgress ?? false,
      lastRun: overview?.lastRun ?? null,
      lastSuccessAt: success,
      lagSeconds: success ? Math.round((now.getTime() - success.getTime()) / 1000) : null,
      ...(work
        ? {
            pending: {
              queuedParents: work.queuedParents,
              everyParent: work.everyParent,
              leftParents: work.leftParents,
              lastError: work.lastError,
            },
          }
        : {}),
    };
  });
  const shown = new Set(configured.partitions.map(label));
  const skipped = new Set(configured.skipped.map((entry) => entry.stream as string));
  const unconfigured = [...overviewOf.keys()]
    .filter((name) => !shown.has(name) && !skipped.has(name.split('/')[0]!))
    .sort();
  return { partitions, unconfigured, skipped: configured.skipped };
}

/** What the metrics and readiness read of a partition: its lag and its latest run's result and error. */
export interface PartitionHealthLine {
  readonly stream: string;
  readonly partition: string;
  readonly lagSeconds: number | null;
  readonly lastRun: { readonly result: string; readonly error: string | null } | null;
}

/**
 * The lag and latest run of every configured partition, for every `/metrics` scrape and readiness
 * check: one read of `partition_runs` (a row per partition), none of the state `status` shows.
 */
export async function readHealth(
  store: Store,
  now: Date,
  configured: Selection,
): Promise<PartitionHealthLine[]> {
  const key = (item: { stream: string; partition: string }) => `${item.stream}\u0000${item.partition}`;
  const healthOf = new Map((await store.partitionHealth()).map((health) => [key(health), health]));
  return configured.partitions.map((item) => {
    const health = healthOf.get(key(item));
    const success = health?.lastSuccessAt;
    return {
      stream: item.stream,
      partition: item.partition,
      lagSeconds: success ? Math.round((now.getTime() - success.getTime()) / 1000) : null,
      lastRun: health?.result ? { result: health.result, error: health.error } : null,
    };
  });
}
