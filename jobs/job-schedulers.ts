import type { RepeatOptions } from 'bullmq';
import pMap from 'p-map';
import type { ScheduleSetting, Settings } from '../config/settings.js';
import { type SkippedStream, type StreamPartition, selectPartitions } from '../src/sync/select-partitions.js';
import { reconciles } from '../src/sync/stream-partitions.js';
import { jobNames, type SyncJobData } from './sync-job.js';
import type { SyncQueue } from './sync-queue.js';

/** Scheduler ids: `sync:<stream>:<partition>` for plain runs, `reconcile:...` for reconcile runs. */
const kinds = { sync: 'sync:', reconcile: 'reconcile:' } as const;

/** The job scheduler id of a stream partition's plain runs: stable, so an upsert on restart replaces it. */
function schedulerIdOf({ stream, partition }: StreamPartition, kind: keyof typeof kinds = 'sync'): string {
  return `${kinds[kind]}${stream}:${partition}`;
}

export interface SchedulerSync {
  readonly upserted: string[];
  /** Schedulers of partitions no longer configured (a stream dropped, an operator removed). */
  readonly removed: string[];
  readonly skipped: SkippedStream[];
}

/**
 * Makes the queue's schedulers match the configuration: one per configured stream partition
 * (`schedule`, `streamSchedules`), one more for its reconcile runs where a reconcile run finds
 * something a plain one does not (`reconcileSchedule`, `streamReconcileSchedules`; default
 * nightly), upserted so a restart never adds a second, and none for what is no longer configured.
 * A scheduler only emits `tick` jobs; the worker turns a tick into a deduplicated `sync` job
 * (sync-processor.ts), so a tick during a run yields one follow-up run, never a parallel one.
 */
export async function syncSchedulers(queue: SyncQueue, settings: Settings): Promise<SchedulerSync> {
  const { partitions, skipped } = selectPartitions([], settings);
  const wanted: Array<{ id: string; schedule: ScheduleSetting; data: SyncJobData }> = [];
  for (const target of partitions) {
    const data: SyncJobData = { ...target, trigger: 'schedule' };
    const schedule = settings.streamSchedules[target.stream] ?? settings.schedule;
    wanted.push({ id: schedulerIdOf(target), schedule, data });
    const reconcile = settings.streamReconcileSchedules[target.stream] ?? settings.reconcileSchedule;
    if (reconcile !== false && reconciles(target.stream, target.partition))
      wanted.push({
        id: schedulerIdOf(target, 'reconcile'),
        schedule: reconcile,
        data: { ...data, reconcile: true },
      });
  }
  // Many at once: each is a round trip, and thousands of operators make tens of thousands.
  await pMap(
    wanted,
    ({ id, schedule, data }) =>
      queue.upsertJobScheduler(id, repeatOf(schedule), {
        name: jobNames.tick,
        data,
        opts: { attempts: 1, removeOnComplete: true, removeOnFail: 100 },
      }),
    { concurrency: schedulersInFlight },
  );
  const upserted = new Set(wanted.map((entry) => entry.id));
  const removed = (await queue.getJobSchedulers(0, -1))
    .map((scheduler) => scheduler.key)
    .filter((key) => Object.values(kinds).some((prefix) => key.startsWith(prefix)) && !upserted.has(key));
  await pMap(removed, (key) => queue.removeJobScheduler(key), { concurrency: schedulersInFlight });
  return { upserted: [...upserted], removed, skipped };
}

/** Scheduler upserts sent at once: one connection pipelines them. */
const schedulersInFlight = 64;

function repeatOf(schedule: ScheduleSetting): Omit<RepeatOptions, 'key'> {
  return schedule.cron !== undefined
    ? { pattern: schedule.cron }
    : { every: (schedule.everySeconds ?? 300) * 1000 };
}
