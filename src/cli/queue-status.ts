import type { Redis } from 'ioredis';
import type { Settings } from '../../config/settings.js';
import { connectRedis, RedisConnectionError } from '../../jobs/connect-redis.js';
import { intervalOfTicksMs } from '../../jobs/job-schedulers.js';
import { jobNames, partitionLabel, type SyncJobData, type SyncJobProgress } from '../../jobs/sync-job.js';
import { openSyncQueue, type SyncQueue } from '../../jobs/sync-queue.js';
import { readHeartbeats, type WorkerBeat } from '../../jobs/worker-heartbeat.js';
import { formatDuration } from './durations.js';

/** The queue side of `status`: workers, counts, schedulers with their next run, active jobs with progress. */
export interface QueueStatus {
  readonly queue: string;
  /** Workers that wrote a heartbeat within the last day, alive ones first (jobs/worker-heartbeat.ts). */
  readonly workers: WorkerBeat[];
  readonly counts: Record<string, number>;
  /** Every scheduler of the queue. */
  readonly schedulerCount: number;
  /** The schedulers next due, soonest first: all of them up to `schedulersShown`, else that many. */
  readonly schedulers: Array<{ id: string; schedule: string; next: Date | null }>;
  readonly active: Array<{
    jobId: string;
    stream: string;
    partition: string;
    startedAt: Date | null;
    progress: SyncJobProgress | null;
  }>;
}

/**
 * Redis not there is not an error of `status` (a `sync` deployment has none): the store side still
 * answers, and the line says why the queue is missing. A Redis that answers and refuses REDIS_URL's
 * credentials is a configuration error (`refused`: the command exits 2 after printing the rest).
 */
export type QueueStatusResult =
  | { readonly reachable: true; readonly status: QueueStatus }
  | { readonly reachable: false; readonly error: string; readonly refused: boolean };

/** Reads the queue's state, failing fast (about `connectTimeoutMs`) when Redis does not answer. */
export async function readQueueStatus(
  settings: Settings,
  connectTimeoutMs = 1500,
): Promise<QueueStatusResult> {
  let redis: Redis;
  try {
    redis = await connectRedis(settings, {
      timeoutMs: connectTimeoutMs,
      redis: { maxRetriesPerRequest: 1, retryStrategy: () => null },
    });
  } catch (error) {
    if (!(error instanceof RedisConnectionError)) throw error;
    return { reachable: false, error: error.message, refused: error.refused };
  }
  redis.on('error', () => undefined);
  const queue = openSyncQueue(settings, redis);
  try {
    const [status, workers] = await Promise.all([
      queueStatusOf(queue),
      readHeartbeats(redis, settings.worker),
    ]);
    return { reachable: true, status: { ...status, workers } };
  } finally {
    await queue.close();
    await redis.quit().catch(() => undefined);
  }
}

/**
 * Schedulers `status` reads whole: each is one more read of Redis, and a fleet of thousands of
 * operators has tens of thousands; past this many it shows the soonest and counts the rest.
 */
export const schedulersShown = 1000;

/** Schedulers the text form lists (a line each); `--json` has all `schedulersShown`. */
const schedulerLinesShown = 20;

async function queueStatusOf(queue: SyncQueue): Promise<Omit<QueueStatus, 'workers'>> {
  const [counts, schedulerCount, schedulers, active] = await Promise.all([
    queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed', 'paused'),
    queue.getJobSchedulersCount(),
    queue.getJobSchedulers(0, schedulersShown - 1, true),
    queue.getActive(),
  ]);
  return {
    queue: queue.name,
    counts,
    schedulerCount,
    schedulers: schedulers.map((scheduler) => ({
      id: scheduler.key,
      schedule: scheduler.pattern ?? `every ${Math.round(intervalOfTicksMs(scheduler.every ?? 0) / 1000)}s`,
      next: scheduler.next ? new Date(scheduler.next) : null,
    })),
    active: active
      .filter((job) => job.name === jobNames.sync || job.name === jobNames.tick)
      .map((job) => {
        const data = job.data as SyncJobData;
        return {
          jobId: job.id ?? '',
          stream: data.stream,
          partition: data.partition,
          startedAt: job.processedOn ? new Date(job.processedOn) : null,
          progress: typeof job.progress === 'object' ? (job.progress as SyncJobProgress) : null,
        };
      }),
  };
}

/** The text form printed after the streams table of `status`. */
export function formatQueueStatus(result: QueueStatusResult, now: Date): string {
  if (!result.reachable)
    // A refusal is the command's error, printed once on stderr after the rest.
    return result.refused
      ? '\nqueue: not shown: Redis refused (the error below)\n'
      : `\nqueue: ${result.error}\n`;
  const { queue, counts, schedulers, schedulerCount, active, workers } = result.status;
  const listed = schedulers.slice(0, schedulerLinesShown);
  const countLine = Object.entries(counts)
    .map(([state, count]) => `${state} ${count}`)
    .join(', ');
  const anyAlive = workers.some((worker) => worker.alive);
  const lines = [
    ...workerLines(workers, now),
    '',
    `queue ${queue}: ${countLine}`,
    reconcileLine(schedulers, schedulerCount > schedulers.length),
    '',
    schedulerCount > listed.length
      ? `schedulers: ${schedulerCount}, the ${listed.length} next due:`
      : 'schedulers:',
  ];
  for (const scheduler of listed) {
    const overdue =
      scheduler.next && scheduler.next < now ? (anyAlive ? ' (due)' : ' (overdue: no worker runs)') : '';
    lines.push(
      `  ${scheduler.id}  ${scheduler.schedule}  next ${scheduler.next?.toISOString() ?? '-'}${overdue}`,
    );
  }
  if (schedulers.length > listed.length)
    lines.push(`  ... (\`status --json\` lists the ${schedulers.length} next due)`);
  lines.push('', 'active jobs:');
  for (const job of active) {
    const progress = job.progress
      ? `${job.progress.pages} pages, ${job.progress.records} records fetched`
      : 'starting';
    lines.push(
      `  ${partitionLabel(job)}  ${job.jobId}  since ${job.startedAt?.toISOString() ?? '-'}  ${progress}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** When the worker next looks for hard deletes: the earliest `reconcile:` scheduler (job-schedulers.ts). */
function reconcileLine(schedulers: QueueStatus['schedulers'], partial: boolean): string {
  const reconcile = schedulers.filter((scheduler) => scheduler.id.startsWith('reconcile:'));
  const next = reconcile
    .map((scheduler) => scheduler.next)
    .filter((date): date is Date => date !== null)
    .sort((a, b) => a.getTime() - b.getTime())[0];
  if (!next && partial)
    return `hard deletes: no reconcile among the ${schedulers.length} schedulers next due`;
  if (!next) return 'hard deletes: no reconcile scheduled';
  return `hard deletes: next reconcile ${next.toISOString()} (${reconcile.length} partitions; schedulers reconcile:*)`;
}

/** Whether any worker runs: the schedules run only then. */
function workerLines(workers: readonly WorkerBeat[], now: Date): string[] {
  const alive = workers.filter((worker) => worker.alive);
  if (alive.length > 0) {
    const notReady = alive.filter((worker) => worker.ready === false).length;
    const readiness =
      notReady === 0 ? '' : notReady === alive.length ? ', NONE READY' : `, ${notReady} NOT READY`;
    return [
      `\nworkers: ${alive.length} alive${readiness}`,
      ...alive.flatMap((worker) => [
        `  ${worker.id}  since ${worker.startedAt.toISOString()}  last heartbeat ${ago(worker.lastBeatAt, now)}${readyText(worker)}`,
        ...worker.notReady.map((reason) => `    ${reason}`),
      ]),
    ];
  }
  const last = workers[0];
  const lastSeen = last
    ? `; the last, ${last.id}, ${last.stoppedAt ? `stopped ${ago(last.stoppedAt, now)}` : `went silent ${ago(last.lastBeatAt, now)}`}`
    : '';
  return [
    `\nworkers: NONE ALIVE${lastSeen}: nothing runs the schedules below until a worker starts (tms-sync worker)`,
  ];
}

/** What the worker's `/readyz` said at its last beat (docs/worker.md, "Readiness"). */
function readyText(worker: WorkerBeat): string {
  if (worker.ready === null) return '';
  return worker.ready ? '  ready' : '  NOT READY (it cannot sync):';
}

function ago(then: Date, now: Date): string {
  return `${formatDuration(Math.max(0, Math.round((now.getTime() - then.getTime()) / 1000)))} ago`;
}
