import { setTimeout as sleep } from 'node:timers/promises';
import { emptyTally, type PartitionSummary } from '../src/sync/run-options.js';
import type { EnqueuedRun } from './enqueue-run.js';
import { deduplicationIdOf, ranPartition, type SyncJobProgress } from './sync-job.js';
import type { SyncQueue } from './sync-queue.js';

export interface FollowOptions {
  /** Called when a followed job reports new progress. @default nothing */
  readonly onProgress?: (run: EnqueuedRun, progress: SyncJobProgress) => void;
  /** @default 500 */
  readonly pollMs?: number;
  /** Give up (FollowTimeoutError) after this long. @default 3600000 */
  readonly timeoutMs?: number;
}

/** `--wait` ran out of time; the jobs go on in the queue. */
export class FollowTimeoutError extends Error {
  override readonly name = 'FollowTimeoutError';
}

/**
 * Follows every enqueued run to its end and returns one summary per run: the job's own summary
 * when it completed, a failed one carrying the job's `failedReason` otherwise. A request folded
 * into a running job is followed through that job and then through its follow-up, the run that
 * started after the request.
 */
export async function followRuns(
  queue: SyncQueue,
  runs: readonly EnqueuedRun[],
  options: FollowOptions = {},
) {
  const deadline = Date.now() + (options.timeoutMs ?? 3_600_000);
  return Promise.all(runs.map((run) => followRun(queue, run, deadline, options)));
}

async function followRun(queue: SyncQueue, run: EnqueuedRun, deadline: number, options: FollowOptions) {
  let summary = await waitForJob(queue, run, run.jobId, deadline, options);
  if (run.state === 'follow-up') {
    const followUp =
      (await queue.getJob(run.requestedId))?.id ??
      (await queue.getDeduplicationJobId(deduplicationIdOf(run.data)));
    if (followUp && followUp !== run.jobId)
      summary = await waitForJob(queue, run, followUp, deadline, options);
  }
  return summary;
}

async function waitForJob(
  queue: SyncQueue,
  run: EnqueuedRun,
  jobId: string,
  deadline: number,
  options: FollowOptions,
): Promise<PartitionSummary> {
  let lastProgress = '';
  for (;;) {
    const job = await queue.getJob(jobId);
    if (!job) return failedSummary(run, `job ${jobId} is gone from the queue`);
    const state = await job.getState();
    if (state === 'completed' || state === 'failed') {
      // Read again: the job read above may predate its end (no return value or reason yet).
      const finished = await queue.getJob(jobId);
      const result = finished?.returnvalue;
      if (state === 'completed' && ranPartition(result)) return result;
      // A tick that handed its run over (sync-processor.ts): the run is that job's, or, replaced
      // by a later request, the partition's job now.
      if (state === 'completed' && result && 'enqueued' in result) {
        const next =
          (await queue.getJob(result.enqueued))?.id ??
          (await queue.getDeduplicationJobId(deduplicationIdOf(run.data)));
        if (next && next !== jobId) return waitForJob(queue, run, next, deadline, options);
      }
      return failedSummary(run, finished?.failedReason ?? 'failed');
    }
    const progress = JSON.stringify(job.progress);
    if (options.onProgress && typeof job.progress === 'object' && progress !== lastProgress) {
      options.onProgress(run, job.progress as SyncJobProgress);
    }
    lastProgress = progress;
    if (Date.now() > deadline)
      throw new FollowTimeoutError(`job ${jobId} not finished in time (it goes on in the queue)`);
    await sleep(options.pollMs ?? 500);
  }
}

function failedSummary(run: EnqueuedRun, error: string): PartitionSummary {
  const { stream, partition } = run.data;
  return {
    ...emptyTally(),
    stream,
    partition,
    runId: null,
    result: 'failed',
    error,
    durationMs: 0,
    dryRun: false,
  };
}
