import type { DefaultJobOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings.js';
import type { WorkerSettings } from '../config/worker-settings.js';
import { Queue as BullQueue } from './bullmq.js';
import type { QueueJobData, QueueJobResult } from './sync-job.js';

// Job names are typed as string: job schedulers share BullMQ's name type for their ids.
export type SyncQueue = Queue<QueueJobData, QueueJobResult, string>;

/**
 * Attempts and back-off of every sync job; finished jobs are kept for inspection (Bull Board,
 * `status`) for a week, failed ones until 5000 newer failures push them out.
 */
function syncJobOptions(settings: Settings): DefaultJobOptions {
  return {
    attempts: settings.worker.attempts,
    backoff: { type: 'exponential', delay: settings.worker.backoffMs },
    removeOnComplete: { age: 7 * 24 * 3600, count: 1000 },
    removeOnFail: { count: 5000 },
  };
}

/** The one queue of the daemon, named and prefixed from settings. */
export function openSyncQueue(settings: Settings, connection: Redis): SyncQueue {
  return new BullQueue(settings.worker.queueName, {
    connection,
    prefix: settings.worker.queuePrefix,
    defaultJobOptions: syncJobOptions(settings),
  });
}

/** Where the queue's own keys live, for keys of ours next to them (partition locks). */
export function queueKeyPrefix(settings: Pick<WorkerSettings, 'queuePrefix' | 'queueName'>): string {
  return `${settings.queuePrefix}:${settings.queueName}`;
}
