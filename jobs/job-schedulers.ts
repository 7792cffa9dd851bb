import { createHash } from 'node:crypto';
import type { RepeatOptions } from 'bullmq';
import pMap from 'p-map';
import type { ScheduleSetting, Settings } from '../config/settings.js';
import { type SkippedStream, type StreamPartition, selectPartitions } from '../src/sync/select-partitions.js';
import { reconciles } from '../src/sync/stream-partitions.js';
import { runDeduplication } from './enqueue-run.js';
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
 * A scheduler only emits `tick` jobs; a tick runs its partition itself, or folds into the `sync`
 * job of the partition already queued or running (sync-processor.ts), so a tick during a run
 * yields one follow-up run, never a parallel one. A tick that runs is retried like a `sync` job:
 * the queue's job options (sync-queue.ts) are its own. A new partition's first tick, added here,
 * holds the partition's deduplication id: its scheduler's own tick folds into it while it waits.
 * The scheduler's first tick comes at the partition's moment in the interval, so a new partition
 * runs at once and again at its moment.
 * The ticks of an `everySeconds` schedule are spread over its interval, partition by partition
 * (`spreadOffset`); a new scheduler ticks once at once, so a new partition does not wait for its slot.
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
  const existing = await schedulerIds(queue);
  // Many at once: each is a round trip, and thousands of operators make tens of thousands.
  await pMap(
    wanted,
    ({ id, schedule, data }) =>
      queue.upsertJobScheduler(id, repeatOf(schedule, `${queue.name}:${id}`), {
        name: jobNames.tick,
        data,
      }),
    { concurrency: schedulersInFlight },
  );
  const fresh = wanted.filter((entry) => entry.schedule.cron === undefined && !existing.has(entry.id));
  // Deduplicated like a `sync` job: its scheduler's own tick that comes while it waits folds into it.
  for (let start = 0; start < fresh.length; start += jobsPerCall)
    await queue.addBulk(
      fresh
        .slice(start, start + jobsPerCall)
        .map(({ data }) => ({ name: jobNames.tick, data, opts: { deduplication: runDeduplication(data) } })),
    );
  const upserted = new Set(wanted.map((entry) => entry.id));
  const removed = [...existing].filter(
    (key) => Object.values(kinds).some((prefix) => key.startsWith(prefix)) && !upserted.has(key),
  );
  await pMap(removed, (key) => queue.removeJobScheduler(key), { concurrency: schedulersInFlight });
  return { upserted: [...upserted], removed, skipped };
}

/** Scheduler upserts sent at once: one connection pipelines them. */
const schedulersInFlight = 64;

/**
 * Schedulers read, and first ticks added, per call. One call for all of them held every job and
 * every answer at once: a worker at 2,000 operators (22,026 schedulers) needed over 128 MB of heap
 * to start, and it grew with the partitions.
 */
const jobsPerCall = 1000;

/** The ids of the queue's schedulers, read a page at a time. */
async function schedulerIds(queue: SyncQueue): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let start = 0; ; start += jobsPerCall) {
    const page = await queue.getJobSchedulers(start, start + jobsPerCall - 1, true);
    for (const scheduler of page) ids.add(scheduler.key);
    if (page.length < jobsPerCall) return ids;
  }
}

function repeatOf(schedule: ScheduleSetting, scheduler: string): Omit<RepeatOptions, 'key'> {
  if (schedule.cron !== undefined) return { pattern: schedule.cron };
  const every = tickEveryMs((schedule.everySeconds ?? 300) * 1000);
  return { every, offset: spreadOffset(scheduler, every) };
}

/**
 * The period of the ticks of an `everySeconds` schedule: the interval less 2% of it (at most 5 s).
 * The interval is a promise on freshness: no more than it between two runs' starts. A run starts
 * a little after its tick, by a different amount each time: the delayed job's promotion and a
 * slot, 0.08-0.1 s on a busy 2-core machine, seconds when its connection's share of the fleet is
 * in use. At the exact interval, a run starting later than the one before made that gap longer
 * than the interval: half the partitions of 200 connections went over, by up to 0.1 s; at 1% (at
 * most 1 s), 1 of 7,800, by 1.4 s.
 */
export function tickEveryMs(intervalMs: number): number {
  return intervalMs - Math.min(5000, Math.floor(intervalMs / 50));
}

/** The interval of a schedule from its ticks' period (`tickEveryMs` undone), as `status` shows it. */
export function intervalOfTicksMs(everyMs: number): number {
  return everyMs >= 245_000 ? everyMs + 5000 : Math.round((everyMs * 50) / 49);
}

/**
 * Where in each interval a scheduler ticks: fixed per scheduler (its queue and id), spread evenly
 * over the schedulers. Without it every partition of a connection is due at the same moment (the
 * one its schedulers were made), and the last of them waits for the others' runs.
 */
export function spreadOffset(scheduler: string, everyMs: number): number {
  const hash = createHash('sha1').update(scheduler).digest().readUInt32BE(0);
  // BullMQ reads an offset of 0 as none.
  return 1 + (hash % Math.max(1, everyMs - 1));
}
