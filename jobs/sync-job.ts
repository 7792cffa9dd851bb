import type { Job } from 'bullmq';
import type { RunTrigger } from '../src/store/store.js';
import type { PartitionSummary } from '../src/sync/run-options.js';

export { partitionLabel } from '../src/sync/stream-order.js';

/**
 * A `sync` job runs one stream partition once; a `tick` job (from a job scheduler) runs one too,
 * or folds into the partition's `sync` job when one is queued or running (sync-processor.ts); a
 * `request` job (`tms-sync trigger`) names streams and partitions for the worker to expand into
 * `sync` jobs with its own configuration.
 */
export const jobNames = { sync: 'sync', tick: 'tick', request: 'request' } as const;

/** What a job of either name carries; `tick` jobs carry no flags (a schedule runs incrementally). */
export interface SyncJobData {
  readonly stream: string;
  /** '' for a stream without partitions; see `partitionsOf`. */
  readonly partition: string;
  readonly trigger: Exclude<RunTrigger, 'cli'>;
  /** @default false */
  readonly full?: boolean;
  /** @default false */
  readonly reconcile?: boolean;
}

/** What a `request` job carries: what `trigger` was asked, expanded by the worker (select-partitions.ts). */
export interface RunRequestData {
  /** Stream and partition names; empty for the worker's configured streams (`trigger all`). */
  readonly targets: readonly string[];
  readonly trigger: 'manual';
  /** @default false */
  readonly full?: boolean;
  /** @default false */
  readonly reconcile?: boolean;
}

/** What any job of the queue carries, by its name. */
export type QueueJobData = SyncJobData | RunRequestData;

/**
 * What a finished `sync` job returns, kept with the job for inspection: the run's summary. A run
 * superseded by another (StateConflictError) completes the job with its `failed` summary.
 */
export type SyncJobResult = PartitionSummary;

/** What `job.updateProgress` receives after every committed page. */
export interface SyncJobProgress {
  readonly pages: number;
  readonly records: number;
  readonly elapsedMs: number;
}

/** What a finished `tick` job returns when it did not run its partition: the job it enqueued (or folded into). */
export interface TickResult {
  readonly enqueued: string;
}

/** What a job of any name returns (a `request` job: `EnqueuedRequest` of enqueue-run.ts). */
export type QueueJobResult = SyncJobResult | TickResult | RequestResult;

/** A `request` job's return value: the runs it enqueued and the streams left out, with why. */
export interface RequestResult {
  readonly runs: ReadonlyArray<{
    readonly data: SyncJobData;
    readonly jobId: string;
    readonly requestedId: string;
    readonly state: 'queued' | 'deduplicated' | 'follow-up';
  }>;
  readonly skipped: ReadonlyArray<{ readonly stream: string; readonly reason: string }>;
}

export type SyncJob = Job<SyncJobData, QueueJobResult, string>;
export type QueueJob = Job<QueueJobData, QueueJobResult, string>;

/**
 * The deduplication id of a run request: one per stream partition and mode. Requests of the same
 * mode collapse into one waiting job (or one follow-up of the active one); a `--full` request is
 * never swallowed by an incremental one, the partition lock keeps the two from overlapping.
 */
export function deduplicationIdOf(data: SyncJobData): string {
  const mode = [data.full ? 'full' : 'incremental', ...(data.reconcile ? ['reconcile'] : [])].join('+');
  return `${data.stream}:${data.partition}:${mode}`;
}

/** Whether a finished job ran its partition: its result is the run's summary (not a tick's hand-over, not a request's list). */
export function ranPartition(result: QueueJobResult | undefined): result is SyncJobResult {
  return typeof result === 'object' && result !== null && 'durationMs' in result && 'stream' in result;
}
