import type { Processor } from 'bullmq';
import type { Redis } from 'ioredis';
import type { StreamName } from '../config/streams.js';
import type { WorkerSettings } from '../config/worker-settings.js';
import type { Logger } from '../src/logger.js';
import type { PartitionSummary, RunProgress } from '../src/sync/run-options.js';
import type { SyncEngine } from '../src/sync/sync-engine.js';
import { enqueueRun } from './enqueue-run.js';
import { postpone, putBack, type SettleContext, settleError, settleRun } from './job-outcome.js';
import { acquirePartitionLock } from './partition-lock.js';
import {
  jobNames,
  partitionLabel,
  type SyncJob,
  type SyncJobData,
  type SyncJobProgress,
} from './sync-job.js';
import { queueKeyPrefix, type SyncQueue } from './sync-queue.js';

export interface SyncProcessorOptions {
  readonly engine: Pick<SyncEngine, 'runPartition'>;
  readonly queue: SyncQueue;
  /** For the partition locks (any connection; blocking commands are not used). */
  readonly redis: Redis;
  readonly settings: WorkerSettings;
  readonly logger: Logger;
  /** Aborted when the worker stops: the running partitions stop after the page in hand. */
  readonly stopping: AbortSignal;
  /** Told about every finished run (metrics). @default nothing */
  readonly onRun?: (summary: PartitionSummary, data: SyncJobData) => void;
}

/**
 * The worker's processor. A `tick` (from a scheduler) becomes a deduplicated `sync` job. A `sync`
 * job takes its partition's lock, runs the engine on that one partition, reports progress per page
 * and hands the outcome to job-outcome.ts, the one place that speaks BullMQ's error language.
 */
export function createSyncProcessor(options: SyncProcessorOptions): Processor<SyncJobData> {
  const { queue, redis, settings } = options;
  return async (job: SyncJob, token, signal) => {
    if (job.name === jobNames.tick) {
      const run = await enqueueRun(queue, {
        stream: job.data.stream,
        partition: job.data.partition,
        trigger: 'schedule',
      });
      return { enqueued: run.jobId };
    }
    const ctx: SettleContext = { job, token, queue, settings };
    const log = options.logger.child({
      jobId: job.id,
      stream: job.data.stream,
      partition: job.data.partition,
    });
    const lock = await acquirePartitionLock({
      redis,
      key: `${queueKeyPrefix(settings)}:partition-lock:${partitionLabel(job.data)}`,
      owner: job.id ?? '',
      ttlMs: settings.lockMs,
    });
    if (!lock) {
      log.info('another run holds the partition; postponed');
      return postpone(ctx);
    }
    try {
      const stop = AbortSignal.any([options.stopping, lock.lost, ...(signal ? [signal] : [])]);
      return await runAndSettle(options, ctx, stop, log);
    } finally {
      await lock.release();
    }
  };
}

async function runAndSettle(
  options: SyncProcessorOptions,
  ctx: SettleContext,
  signal: AbortSignal,
  log: Logger,
) {
  let summary: PartitionSummary | undefined;
  try {
    summary = await runJob(options, ctx.job, signal, log);
  } catch (error) {
    return settleError(ctx, error);
  }
  if (!summary) return putBack(ctx);
  options.onRun?.(summary, ctx.job.data);
  return settleRun(ctx, summary);
}

/** The job's partition run by the engine, its progress reported per page; undefined when stopped before it began. */
async function runJob(options: SyncProcessorOptions, job: SyncJob, signal: AbortSignal, log: Logger) {
  const { stream, partition, trigger, full = false, reconcile = false } = job.data;
  log.info({ trigger, full, reconcile, attempt: job.attemptsMade + 1 }, 'sync job started');
  const onProgress = (progress: RunProgress) => {
    const update: SyncJobProgress = {
      pages: progress.pages,
      records: progress.records,
      elapsedMs: progress.elapsedMs,
    };
    job
      .updateProgress({ ...update })
      .catch((error: unknown) => log.warn({ err: error }, 'progress not saved'));
  };
  if (signal.aborted) return undefined;
  const summary = await options.engine.runPartition(stream as StreamName, partition, {
    trigger,
    full,
    reconcile,
    signal,
    onProgress,
  });
  return summary;
}
