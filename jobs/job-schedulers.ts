import type { RepeatOptions } from 'bullmq';
import type { ScheduleSetting, Settings } from '../config/settings.js';
import { expandStreams, type StreamPartition } from './stream-partitions.js';
import { jobNames, type SyncJobData } from './sync-job.js';
import type { SyncQueue } from './sync-queue.js';

const schedulerPrefix = 'sync:';

/** The job scheduler id of a stream partition: stable, so an upsert on restart replaces it. */
export function schedulerIdOf({ stream, partition }: StreamPartition): string {
  return `${schedulerPrefix}${stream}:${partition}`;
}

export interface SchedulerSync {
  readonly upserted: string[];
  /** Schedulers of partitions no longer configured (a stream dropped, an operator removed). */
  readonly removed: string[];
  readonly skipped: Array<{ stream: string; reason: string }>;
}

/**
 * Makes the queue's schedulers match the configuration: one per stream partition (upserted, so a
 * restart never adds a second), and none for partitions no longer configured. A scheduler only
 * emits `tick` jobs; the worker turns a tick into a deduplicated `sync` job (sync-processor.ts), so a
 * tick during a run yields one follow-up run, never a parallel one.
 */
export async function syncSchedulers(queue: SyncQueue, settings: Settings): Promise<SchedulerSync> {
  const { partitions, skipped } = expandStreams([], settings);
  const upserted: string[] = [];
  for (const target of partitions) {
    const id = schedulerIdOf(target);
    const data: SyncJobData = { ...target, trigger: 'schedule' };
    const schedule = settings.streamSchedules[target.stream] ?? settings.schedule;
    await queue.upsertJobScheduler(id, repeatOf(schedule), {
      name: jobNames.tick,
      data,
      opts: { attempts: 1, removeOnComplete: true, removeOnFail: 100 },
    });
    upserted.push(id);
  }
  const removed: string[] = [];
  for (const scheduler of await queue.getJobSchedulers(0, -1)) {
    if (!scheduler.key.startsWith(schedulerPrefix) || upserted.includes(scheduler.key)) continue;
    await queue.removeJobScheduler(scheduler.key);
    removed.push(scheduler.key);
  }
  return { upserted, removed, skipped };
}

function repeatOf(schedule: ScheduleSetting): Omit<RepeatOptions, 'key'> {
  return schedule.cron !== undefined
    ? { pattern: schedule.cron }
    : { every: (schedule.everySeconds ?? 300) * 1000 };
}
