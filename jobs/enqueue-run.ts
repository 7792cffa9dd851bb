import { randomUUID } from 'node:crypto';
import type { Settings } from '../config/settings.js';
import { expandStreams } from './stream-partitions.js';
import { deduplicationIdOf, jobNames, type SyncJobData } from './sync-job.js';
import type { SyncQueue } from './sync-queue.js';

/**
 * What became of one run request:
 * - `queued`: a new job, `jobId` is the request's own;
 * - `deduplicated`: a job of the same partition and mode was waiting; it will serve the request;
 * - `follow-up`: one was running; exactly one follow-up run of the partition starts when it ends.
 */
export interface EnqueuedRun {
  readonly data: SyncJobData;
  /** The job the request was folded into (the request's own id when `queued`). */
  readonly jobId: string;
  /** The id the request asked for; a follow-up job gets it unless a later request replaced it. */
  readonly requestedId: string;
  readonly state: 'queued' | 'deduplicated' | 'follow-up';
}

/**
 * Adds a `sync` job for one stream partition, deduplicated per partition and mode with
 * `keepLastIfActive`: while a job waits, requests fold into it; while one runs, they collapse
 * into exactly one follow-up job; two jobs of one deduplication id never run at once.
 */
export async function enqueueRun(queue: SyncQueue, data: SyncJobData): Promise<EnqueuedRun> {
  const requestedId = `${data.trigger}-${randomUUID()}`;
  const job = await queue.add(jobNames.sync, data, {
    jobId: requestedId,
    deduplication: { id: deduplicationIdOf(data), keepLastIfActive: true },
  });
  const jobId = job.id ?? requestedId;
  if (jobId === requestedId) return { data, jobId, requestedId, state: 'queued' };
  const existing = await queue.getJob(jobId);
  // processedOn is set once the job was taken: BullMQ stored our request as its follow-up.
  const state = existing?.processedOn ? 'follow-up' : 'deduplicated';
  return { data, jobId, requestedId, state };
}

export interface RunRequest {
  /** Stream names; empty for every stream of the catalogue that is configured. */
  readonly streams: readonly string[];
  readonly trigger: SyncJobData['trigger'];
  readonly full?: boolean;
  readonly reconcile?: boolean;
}

/** Enqueues a run of every partition of the named streams (see `expandStreams` for what is skipped). */
export async function enqueueStreams(queue: SyncQueue, settings: Settings, request: RunRequest) {
  const { partitions, skipped } = expandStreams(request.streams, settings);
  const runs: EnqueuedRun[] = [];
  for (const { stream, partition } of partitions) {
    const flags = { full: request.full ?? false, reconcile: request.reconcile ?? false };
    runs.push(await enqueueRun(queue, { stream, partition, trigger: request.trigger, ...flags }));
  }
  return { runs, skipped };
}
