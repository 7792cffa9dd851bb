import { Redis } from 'ioredis';
import type { Settings } from '../../config/settings.js';
import { partitionLabel, type SyncJobData, type SyncJobProgress } from '../../jobs/sync-job.js';
import { openSyncQueue, type SyncQueue } from '../../jobs/sync-queue.js';

/** The queue side of `status`: counts, schedulers with their next run, active jobs with progress. */
export interface QueueStatus {
  readonly queue: string;
  readonly counts: Record<string, number>;
  readonly schedulers: Array<{ id: string; schedule: string; next: Date | null }>;
  readonly active: Array<{
    jobId: string;
    stream: string;
    partition: string;
    startedAt: Date | null;
    progress: SyncJobProgress | null;
  }>;
}

/** Unreachable Redis is not an error of `status`: the store side still answers. */
export type QueueStatusResult =
  | { readonly reachable: true; readonly status: QueueStatus }
  | { readonly reachable: false; readonly error: string };

/** Reads the queue's state, failing fast (about `connectTimeoutMs`) when Redis does not answer. */
export async function readQueueStatus(
  settings: Settings,
  connectTimeoutMs = 1500,
): Promise<QueueStatusResult> {
  const redis = new Redis(settings.redisUrl, {
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    return { reachable: false, error: (error as Error).message };
  }
  const queue = openSyncQueue(settings, redis);
  try {
    return { reachable: true, status: await queueStatusOf(queue) };
  } finally {
    await queue.close();
    await redis.quit().catch(() => undefined);
  }
}

async function queueStatusOf(queue: SyncQueue): Promise<QueueStatus> {
  const [counts, schedulers, active] = await Promise.all([
    queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed', 'paused'),
    queue.getJobSchedulers(0, -1, true),
    queue.getActive(),
  ]);
  return {
    queue: queue.name,
    counts,
    schedulers: schedulers.map((scheduler) => ({
      id: scheduler.key,
      schedule: scheduler.pattern ?? `every ${Math.round((scheduler.every ?? 0) / 1000)}s`,
      next: scheduler.next ? new Date(scheduler.next) : null,
    })),
    active: active.map((job) => {
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
export function formatQueueStatus(result: QueueStatusResult): string {
  if (!result.reachable) return `\nqueue: Redis not reachable (${result.error})\n`;
  const { queue, counts, schedulers, active } = result.status;
  const countLine = Object.entries(counts)
    .map(([state, count]) => `${state} ${count}`)
    .join(', ');
  const lines = [`\nqueue ${queue}: ${countLine}`, '', 'schedulers:'];
  for (const scheduler of schedulers) {
    lines.push(`  ${scheduler.id}  ${scheduler.schedule}  next ${scheduler.next?.toISOString() ?? '-'}`);
  }
  lines.push('', 'active jobs:');
  for (const job of active) {
    const progress = job.progress
      ? `${job.progress.pages} pages, ${job.progress.records} records`
      : 'starting';
    lines.push(
      `  ${partitionLabel(job)}  ${job.jobId}  since ${job.startedAt?.toISOString() ?? '-'}  ${progress}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
