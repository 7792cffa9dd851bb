import type { Job } from 'bullmq';
import type { RunTrigger } from '../src/store/store.js';
import type { PartitionSummary } from '../src/sync/run-options.js';

/** A `sync` job runs one stream partition once; a `tick` job (from a job scheduler) asks for one. */
export const jobNames = { sync: 'sync', tick: 'tick' } as const;

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

export type SyncJob = Job<SyncJobData, SyncJobResult | { enqueued: string }, string>;

/** `stream` or `stream/partition`, as logs and tables show a partition. */
export function partitionLabel(data: Pick<SyncJobData, 'stream' | 'partition'>): string {
  return data.partition ? `${data.stream}/${data.partition}` : data.stream;
}

/**
 * The deduplication id of a run request: one per stream partition and mode. Requests of the same
 * mode collapse into one waiting job (or one follow-up of the active one); a `--full` request is
 * never swallowed by an incremental one, the partition lock keeps the two from overlapping.
 */
export function deduplicationIdOf(data: SyncJobData): string {
  const mode = [data.full ? 'full' : 'incremental', ...(data.reconcile ? ['reconcile'] : [])].join('+');
  return `${data.stream}:${data.partition}:${mode}`;
}
