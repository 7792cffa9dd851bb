import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings.js';
import { createLocalBudget, type RequestBudget } from '../src/client/index.js';
import type { Logger } from '../src/logger.js';
import type { PartitionSummary } from '../src/sync/run-options.js';
import type { SyncEngine } from '../src/sync/sync-engine.js';
import type { BackfillClassifier } from './backfill-priority.js';
import { Worker as BullWorker } from './bullmq.js';
import type { FleetPace } from './fleet-pace.js';
import { type SchedulerSync, syncSchedulers } from './job-schedulers.js';
import type { Readiness } from './readiness.js';
import type { RunSlots } from './run-slots.js';
import {
  jobNames,
  type QueueJobData,
  type QueueJobResult,
  ranPartition,
  type SyncJobData,
} from './sync-job.js';
import { createSyncProcessor } from './sync-processor.js';
import type { SyncQueue } from './sync-queue.js';
import { startHeartbeat } from './worker-heartbeat.js';

export interface SyncWorkerOptions {
  readonly settings: Settings;
  readonly logger: Logger;
  readonly engine: Pick<SyncEngine, 'runPartition'>;
  readonly queue: SyncQueue;
  /** Shared by the queue and the partition locks; the worker opens its own blocking connection from it. */
  readonly redis: Redis;
  /**
   * The request budget the engine's client takes from (the fleet's, in Redis): its pause after a
   * 429 delays every job until it ends. @default a budget of this process alone
   */
  readonly budget?: RequestBudget;
  /** Told about every finished run and every retry (metrics). @default nothing */
  readonly onRun?: (summary: PartitionSummary, data: SyncJobData) => void;
  readonly onRetry?: (data: SyncJobData) => void;
  /** Upsert the schedulers on start. @default true */
  readonly schedule?: boolean;
  /** How often the worker writes its heartbeat (worker-heartbeat.ts). @default defaultHeartbeatMs (10 s) */
  readonly heartbeatMs?: number;
  /** Whether the worker can do its job, written with each heartbeat (`status` shows it). @default not written */
  readonly readiness?: () => Promise<Readiness>;
  /** Jobs this worker holds at once. @default settings.worker.concurrency */
  readonly concurrency?: number;
  /** Backfills enqueued behind incremental runs (backfill-priority.ts). @default no priorities */
  readonly classifier?: BackfillClassifier;
  /** The process's runs in flight, shared with its other connections (run-slots.ts). @default none */
  readonly slots?: RunSlots;
  /** Backfills give way while scheduled runs start late (fleet-pace.ts). @default no pacing */
  readonly pace?: FleetPace;
}

export interface StopOptions {
  /**
   * How long the running jobs may go on to their end before they are told to stop after the page
   * in hand. @default 0 (told at once)
   */
  readonly finishWithinMs?: number;
}

export interface SyncWorker {
  readonly worker: Worker<QueueJobData, QueueJobResult, string>;
  readonly schedulers: SchedulerSync | undefined;
  /**
   * Takes no new job, lets the running ones stop after their page in hand (they go back to waiting
   * and resume from their checkpoint elsewhere), within `timeoutMs`; false when it had to force.
   */
  stop(timeoutMs: number, options?: StopOptions): Promise<boolean>;
}

/** Upserts the schedulers and starts processing; the caller owns queue, Redis and engine. */
export async function startSyncWorker(options: SyncWorkerOptions): Promise<SyncWorker> {
  const { settings, logger, queue } = options;
  const schedulers = options.schedule === false ? undefined : await syncSchedulers(queue, settings);
  if (schedulers)
    logger.info(
      { upserted: schedulers.upserted.length, removed: schedulers.removed, skipped: schedulers.skipped },
      'job schedulers in place',
    );
  const stopping = new AbortController();
  // Every job in flight listens to it (WORKER_CONCURRENCY, 16 by default): not the leak Node's
  // warning at 11 listeners suspects.
  setMaxListeners(0, stopping.signal);
  const processor = createSyncProcessor({
    ...options,
    budget: options.budget ?? createLocalBudget(0),
    stopping: stopping.signal,
  });
  const name = `${hostname()}:${process.pid}`;
  const worker = new BullWorker<QueueJobData, QueueJobResult, string>(settings.worker.queueName, processor, {
    connection: options.redis,
    // Shown as the job's `processedBy` (Bull Board, status): which process runs a partition.
    name,
    prefix: settings.worker.queuePrefix,
    concurrency: options.concurrency ?? settings.worker.concurrency,
    lockDuration: settings.worker.lockMs,
    stalledInterval: settings.worker.lockMs,
    // BullMQ's default of 1 would fail a job the second time its worker dies (a deploy, an OOM kill).
    maxStalledCount: settings.worker.maxStalls,
  });
  watch(worker, options);
  await worker.waitUntilReady();
  const heartbeat = await startHeartbeat({
    redis: options.redis,
    settings: settings.worker,
    id: name,
    ...(options.heartbeatMs ? { intervalMs: options.heartbeatMs } : {}),
    ...(options.readiness ? { readiness: options.readiness } : {}),
  });
  return {
    worker,
    schedulers,
    async stop(timeoutMs, { finishWithinMs = 0 } = {}) {
      await heartbeat.stop();
      const closed = worker.close().then(() => true);
      const within = (ms: number) =>
        Promise.race([closed, new Promise<boolean>((resolve) => setTimeout(resolve, ms, false).unref())]);
      if (finishWithinMs > 0 && (await within(finishWithinMs))) return true;
      stopping.abort(new Error('worker stopping'));
      if (await within(timeoutMs)) return true;
      logger.warn({ timeoutMs }, 'graceful stop timed out; closing the worker by force');
      await worker.close(true);
      return false;
    },
  };
}

function watch(worker: SyncWorker['worker'], options: SyncWorkerOptions): void {
  const { logger } = options;
  worker.on('completed', (job, result) => {
    if (ranPartition(result)) logger.info({ jobId: job.id, ...job.data, ...result }, 'sync job completed');
  });
  worker.on('failed', (job, error) => {
    if (!job) return;
    const willRetry = job.attemptsMade < (job.opts.attempts ?? 1) && error.name !== 'UnrecoverableError';
    if (willRetry && job.name !== jobNames.request) options.onRetry?.(job.data as SyncJobData);
    logger.error(
      { jobId: job.id, ...job.data, attempt: job.attemptsMade, willRetry, error: error.message },
      'sync job failed',
    );
  });
  // BullMQ tells a failed lock renewal twice: `lockRenewalFailed` with the jobs' ids, then an
  // 'error' for each. A renewal that raced the job's own end (a stop puts its run back as delayed
  // while the renewal is on its way) is no failure: the job is no longer active. Only a job still
  // active, whose lock another worker may have taken, is logged as an error.
  const renewals = new Set<string>();
  worker.on('lockRenewalFailed', (jobIds) => {
    for (const jobId of jobIds) {
      renewals.add(jobId);
      void reportRenewal(options, jobId);
    }
    // Its errors follow at once, in the same turn: nothing is kept past it.
    setImmediate(() => {
      for (const jobId of jobIds) renewals.delete(jobId);
    });
  });
  worker.on('error', (error) => {
    const jobId = renewalFailure.exec(error.message)?.[1];
    if (jobId !== undefined && renewals.delete(jobId)) return;
    logger.error({ error: error.message }, 'worker error');
  });
}

/** BullMQ's error for a lock it could not renew (lock-manager.js), told by `lockRenewalFailed` first. */
const renewalFailure = /^could not renew lock for job (.+)$/;

async function reportRenewal(options: SyncWorkerOptions, jobId: string): Promise<void> {
  // Unreadable, the renewal may have failed for real: told as an error.
  const state = await options.queue.getJobState(jobId).catch(() => 'unreadable');
  if (state === 'active' || state === 'unreadable')
    options.logger.error(
      { jobId, state },
      'worker error: could not renew the lock of a job still active (another worker may run it as well)',
    );
  else options.logger.info({ jobId, state }, "a job's lock renewal raced its end; nothing was left to renew");
}
