import type { Processor } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings.js';
import type { StreamName } from '../config/streams.js';
import type { RequestBudget } from '../src/client/index.js';
import { linkSignals, type StopSignal } from '../src/linked-signals.js';
import type { Logger } from '../src/logger.js';
import type { PartitionSummary, RunProgress } from '../src/sync/run-options.js';
import type { SyncEngine } from '../src/sync/sync-engine.js';
import type { BackfillClassifier } from './backfill-priority.js';
import { enqueueDependentRuns, enqueueRun, enqueueStreams } from './enqueue-run.js';
import type { FleetPace } from './fleet-pace.js';
import {
  postpone,
  putBack,
  type SettleContext,
  settleError,
  settleRun,
  waitOutPause,
} from './job-outcome.js';
import { acquirePartitionLock } from './partition-lock.js';
import type { RunSlots } from './run-slots.js';
import {
  deduplicationIdOf,
  jobNames,
  partitionLabel,
  type QueueJob,
  type QueueJobData,
  type RunRequestData,
  type SyncJob,
  type SyncJobData,
  type SyncJobProgress,
  type TickResult,
} from './sync-job.js';
import { queueKeyPrefix, type SyncQueue } from './sync-queue.js';

export interface SyncProcessorOptions {
  readonly engine: Pick<SyncEngine, 'runPartition'>;
  readonly queue: SyncQueue;
  /** The TMS allowance the engine's client takes from: while it is paused (a 429), no job starts. */
  readonly budget: Pick<RequestBudget, 'pause' | 'pausedForMs'>;
  /** For the partition locks (any connection; blocking commands are not used). */
  readonly redis: Redis;
  /** The worker's settings: its queue settings, and what a `request` job expands into. */
  readonly settings: Settings;
  readonly logger: Logger;
  /** Aborted when the worker stops: the running partitions stop after the page in hand. */
  readonly stopping: StopSignal;
  /** Told about every finished run (metrics). @default nothing */
  readonly onRun?: (summary: PartitionSummary, data: SyncJobData) => void;
  /** Which runs are backfills, enqueued behind incremental ones (backfill-priority.ts). @default no priorities */
  readonly classifier?: BackfillClassifier;
  /** The process's runs in flight, shared with its other connections (run-slots.ts). @default no limit of its own */
  readonly slots?: RunSlots;
  /** Told when scheduled runs start; backfills give way to them while they start late (fleet-pace.ts). @default no pacing */
  readonly pace?: FleetPace;
}

/**
 * The worker's processor. A `tick` (from a scheduler) runs its partition like a `sync` job, or
 * becomes a deduplicated `sync` job (`tickHandedOver`); a `request` (`tms-sync trigger`) becomes
 * one per partition it names, as this worker's settings expand it. A `sync` job (or a tick that
 * runs) takes its partition's lock, runs the engine on that one partition,
 * reports progress per page, asks for its child streams' runs when it queued parents, and hands
 * the outcome to job-outcome.ts, the one place that speaks BullMQ's error language.
 */
export function createSyncProcessor(options: SyncProcessorOptions): Processor<QueueJobData> {
  const { queue, budget } = options;
  const settings = options.settings.worker;
  // Whether this connection has asked for a slot in the process yet: its first run goes ahead (run-slots.ts).
  let askedBefore = false;
  return async (queued: QueueJob, token, signal) => {
    if (queued.name === jobNames.request) {
      const request = queued.data as RunRequestData;
      const ctx: SettleContext = { job: queued as SyncJob, token, budget, settings };
      try {
        return await enqueueStreams(
          queue,
          options.settings,
          { ...request, streams: request.targets },
          options.classifier,
        );
      } catch (error) {
        return settleError(ctx, error);
      }
    }
    const job = queued as SyncJob;
    if (job.name === jobNames.tick) {
      const handedOver = await tickHandedOver(options, job);
      if (handedOver) return handedOver;
    }
    const ctx: SettleContext = { job, token, budget, settings };
    const log = options.logger.child({
      jobId: job.id,
      stream: job.data.stream,
      partition: job.data.partition,
    });
    const pausedForMs = await budget.pausedForMs();
    if (pausedForMs > 0) {
      log.info({ pausedForMs }, 'the TMS asked every sender to wait (429 Retry-After); job delayed');
      return waitOutPause(ctx, pausedForMs);
    }
    // Linked, not AbortSignal.any: the worker's stop signal outlives every job (linked-signals.ts).
    const stop = linkSignals(options.stopping, signal);
    try {
      const first = !askedBefore;
      askedBefore = true;
      const slot = options.slots ? await options.slots.take(stop.stop, first) : () => {};
      if (!slot) return putBack(ctx);
      try {
        return await lockAndRun(options, ctx, stop.stop, log);
      } finally {
        slot();
      }
    } finally {
      stop.unlink();
    }
  };
}

/**
 * One BullMQ job per scheduled run: a tick runs its partition itself, unless the run is
 * a backfill (queued as a `sync` job behind incremental runs, backfill-priority.ts) or a `sync` job
 * of the partition and mode is already queued or running: the tick then folds into it, or into its
 * one follow-up (enqueue-run.ts). Undefined: the tick runs the partition.
 */
async function tickHandedOver(options: SyncProcessorOptions, job: SyncJob): Promise<TickResult | undefined> {
  const data = scheduledRunOf(job.data);
  const backfill = (await options.classifier?.isBackfill(data)) ?? false;
  if (!backfill) {
    // A new partition's first tick holds the deduplication id itself (job-schedulers.ts).
    const holder = await options.queue.getDeduplicationJobId(deduplicationIdOf(data));
    if (holder === null || holder === job.id) return undefined;
  }
  return handOver(options.queue, data, backfill);
}

/** A tick's run given to a deduplicated `sync` job; the job that will run it (a follow-up: the request's own). */
async function handOver(queue: SyncQueue, data: SyncJobData, backfill = false): Promise<TickResult> {
  const run = await enqueueRun(queue, data, { backfill });
  return { enqueued: run.state === 'follow-up' ? run.requestedId : run.jobId };
}

/** The run a scheduler's tick asks for (ticks of schedulers made by older versions carry the same fields). */
function scheduledRunOf(data: SyncJobData): SyncJobData {
  const { stream, partition, reconcile } = data;
  return { stream, partition, trigger: 'schedule', ...(reconcile ? { reconcile: true } : {}) };
}

/**
 * Runs the job under its partition's lock. While another run holds it, a `sync` job is postponed;
 * a tick folds into a `sync` job of the partition (its one follow-up), so ticks never pile up
 * behind a long run.
 */
async function lockAndRun(options: SyncProcessorOptions, ctx: SettleContext, stop: StopSignal, log: Logger) {
  const { job } = ctx;
  const settings = options.settings.worker;
  const lock = await acquirePartitionLock({
    redis: options.redis,
    key: `${queueKeyPrefix(settings)}:partition-lock:${partitionLabel(job.data)}`,
    owner: job.id ?? '',
    ttlMs: settings.lockMs,
  });
  if (!lock) {
    if (job.name === jobNames.tick) return handOver(options.queue, scheduledRunOf(job.data));
    log.info('another run holds the partition; postponed');
    return postpone(ctx);
  }
  const stopOrLost = linkSignals(stop, lock.lost);
  try {
    return await runAndSettle(options, ctx, stopOrLost.stop, log);
  } finally {
    stopOrLost.unlink();
    await lock.release();
  }
}

async function runAndSettle(
  options: SyncProcessorOptions,
  ctx: SettleContext,
  signal: StopSignal,
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
  if (summary.result === 'succeeded') options.classifier?.completed(ctx.job.data);
  await enqueueDependentRuns(options.queue, options.settings, summary).then(
    (runs) =>
      runs.length > 0 && log.info({ dependents: runs.map((run) => run.jobId) }, 'dependent runs enqueued'),
    (error: unknown) =>
      log.warn({ error: String(error) }, 'dependent runs not enqueued; they run on their schedule'),
  );
  return settleRun(ctx, summary);
}

/** How often a running job's progress (pages, records) is saved to its job: `status` shows it. */
const progressEveryMs = 1000;

/** The job's partition run by the engine, its progress reported at most every `progressEveryMs`; undefined when stopped before it began. */
async function runJob(options: SyncProcessorOptions, job: SyncJob, signal: StopSignal, log: Logger) {
  const { stream, partition, trigger, full = false, reconcile = false } = job.data;
  log.info({ trigger, full, reconcile, attempt: job.attemptsMade + 1 }, 'sync job started');
  let reportedAt = performance.now();
  const onProgress = (progress: RunProgress) => {
    // A round trip to Redis per page would cost most runs (one page) more than their work.
    if (performance.now() - reportedAt < progressEveryMs) return;
    reportedAt = performance.now();
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
  const paced = await pacing(options, job);
  const summary = await options.engine.runPartition(stream as StreamName, partition, {
    trigger,
    full,
    reconcile,
    signal,
    onProgress,
    ...(paced ? { giveWay: paced.giveWay } : {}),
  });
  const gaveWayMs = Math.round(paced?.waitedMs() ?? 0);
  if (gaveWayMs > 0) log.info({ gaveWayMs }, 'the backfill gave way to scheduled runs starting late');
  return summary;
}

/**
 * A scheduled run tells the fleet how late it starts; a backfill gets a give-way that counts its
 * own waits (fleet-pace.ts). Undefined: the run does not give way.
 */
async function pacing(options: SyncProcessorOptions, job: SyncJob) {
  const { pace } = options;
  if (!pace) return undefined;
  // A scheduler's tick is due at its creation plus the delay it was created with: `opts.delay`,
  // since BullMQ sets `job.delay` to 0 when it promotes a delayed job. A tick that runs is never a
  // backfill: those are handed over (tickHandedOver).
  if (job.name === jobNames.tick) {
    pace.started(Date.now() - (job.timestamp + (job.opts.delay ?? 0)));
    return undefined;
  }
  const backfill = job.data.full === true || ((await options.classifier?.isBackfill(job.data)) ?? false);
  if (!backfill) return undefined;
  let waited = 0;
  return {
    async giveWay(signal: StopSignal) {
      waited += await pace.giveWay(signal);
    },
    waitedMs: () => waited,
  };
}
