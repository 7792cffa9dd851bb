import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { jobNames, type RequestResult, type RunRequestData } from './sync-job.js';
import type { SyncQueue } from './sync-queue.js';

/** What became of a `request` job: expanded by a worker, refused by it, or not taken yet. */
export type RequestOutcome =
  | { readonly state: 'expanded'; readonly jobId: string; readonly result: RequestResult }
  | { readonly state: 'refused'; readonly jobId: string; readonly reason: string }
  | { readonly state: 'waiting'; readonly jobId: string };

export interface RequestOptions {
  /** How long to wait for a worker to expand the request. */
  readonly timeoutMs: number;
  /** @default 200 */
  readonly pollMs?: number;
}

/**
 * Adds a `request` job for the worker to expand into runs with its own configuration (which
 * partitions exist, which streams are configured), and waits for the outcome: the runs it
 * enqueued, the reason it refused (an unknown partition, a stream lacking configuration), or
 * `waiting` when no worker took it in time (it stays queued for the next worker that starts).
 */
export async function requestRuns(
  queue: SyncQueue,
  request: RunRequestData,
  options: RequestOptions,
): Promise<RequestOutcome> {
  const jobId = `request-${randomUUID()}`;
  await queue.add(jobNames.request, request, {
    jobId,
    attempts: 1,
    removeOnComplete: { age: 24 * 3600, count: 1000 },
    removeOnFail: { age: 24 * 3600, count: 1000 },
  });
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const job = await queue.getJob(jobId);
    const state = job ? await job.getState() : 'unknown';
    if (state === 'completed' || state === 'failed') {
      const finished = await queue.getJob(jobId);
      if (state === 'completed')
        return { state: 'expanded', jobId, result: finished!.returnvalue as RequestResult };
      return { state: 'refused', jobId, reason: finished?.failedReason ?? 'refused' };
    }
    if (Date.now() > deadline) return { state: 'waiting', jobId };
    await sleep(options.pollMs ?? 200);
  }
}
