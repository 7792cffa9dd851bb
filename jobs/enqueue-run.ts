import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import pMap from 'p-map';
import type { Settings } from '../config/settings.js';
import type { PartitionSummary } from '../src/sync/run-options.js';
import { configuredStreams, type SkippedStream, selectPartitions } from '../src/sync/select-partitions.js';
import { childStreamsOf, idsReadersOf, readsOwnOperator } from '../src/sync/stream-order.js';
import { type BackfillClassifier, backfillPriority } from './backfill-priority.js';
import { deduplicationIdOf, jobNames, type RequestResult, type SyncJobData } from './sync-job.js';
import type { SyncQueue } from './sync-queue.js';

/**
 * What became of one run request (the shape of `RequestResult` runs):
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
export async function enqueueRun(
  queue: SyncQueue,
  data: SyncJobData,
  { backfill = false }: { readonly backfill?: boolean } = {},
): Promise<EnqueuedRun> {
  const requestedId = `${data.trigger}-${randomUUID()}`;
  const job = await queue.add(jobNames.sync, data, {
    jobId: requestedId,
    deduplication: runDeduplication(data),
    // A backfill (backfill-priority.ts) waits while any incremental cycle of the queue waits.
    ...(backfill ? { priority: backfillPriority } : {}),
  });
  const jobId = job.id ?? requestedId;
  if (jobId === requestedId) return { data, jobId, requestedId, state: 'queued' };
  const existing = await queue.getJob(jobId);
  // processedOn is set once the job was taken: BullMQ stored our request as its follow-up.
  const state = existing?.processedOn ? 'follow-up' : 'deduplicated';
  if (state === 'deduplicated' && (existing?.priority ?? 0) > 0) await joinTheLine(existing!);
  return { data, jobId, requestedId, state };
}

/**
 * A backfill still waiting when its partition is asked for again (its next tick, one interval on)
 * goes to the back of the line of incremental runs: behind the ones waiting, but no longer behind
 * every one to come. A fleet that is behind always has an incremental run waiting, and a backfill
 * waited for them for ever (bench: 63 partitions of 200 connections never ran in 24 minutes of
 * 60-s cycles). A job taken or gone meanwhile needs nothing.
 */
async function joinTheLine(job: Job): Promise<void> {
  await job.changePriority({ priority: 0 }).catch(() => undefined);
}

/** How a run's job is deduplicated: one per partition and mode, a request during its run kept as its one follow-up. */
export function runDeduplication(data: SyncJobData): { id: string; keepLastIfActive: true } {
  return { id: deduplicationIdOf(data), keepLastIfActive: true };
}

export interface RunRequest {
  /** Stream and partition names (`tasks/1001`); empty for the configured streams (select-partitions.ts). */
  readonly streams: readonly string[];
  readonly trigger: SyncJobData['trigger'];
  readonly full?: boolean;
  readonly reconcile?: boolean;
}

/** What a run request became: a run per partition, and the streams left out for missing configuration. */
export interface EnqueuedRequest extends RequestResult {
  readonly runs: EnqueuedRun[];
  readonly skipped: SkippedStream[];
}

/**
 * Enqueues a run of every partition the request names, as this process's settings expand it
 * (`selectPartitions`): called in the worker, which knows its partitions and configuration.
 * With `classifier`, backfills are enqueued behind incremental runs. @default no priorities
 */
export async function enqueueStreams(
  queue: SyncQueue,
  settings: Settings,
  request: RunRequest,
  classifier?: BackfillClassifier,
): Promise<EnqueuedRequest> {
  const { partitions, skipped } = selectPartitions(request.streams, settings);
  const flags = { full: request.full ?? false, reconcile: request.reconcile ?? false };
  // Many at once (one connection pipelines them): `trigger all` of thousands of operators.
  const runs = await pMap(
    partitions,
    async ({ stream, partition }) => {
      const data: SyncJobData = { stream, partition, trigger: request.trigger, ...flags };
      return enqueueRun(queue, data, { backfill: (await classifier?.isBackfill(data)) ?? false });
    },
    { concurrency: 64 },
  );
  return { runs, skipped };
}

/**
 * After a run that changed what other streams read, a run of each configured one at once
 * (`streams.include`/`exclude`), so they do not wait for their own schedule: the child streams
 * after a parent's run that queued parents (every record it committed or marked deleted queues
 * its children), and the streams whose ids come from its rows, for the same operator, after a run
 * that inserted, updated or deleted some (the goods of new tasks; a first run, which they were
 * skipped waiting for).
 * Coalesced like every request: while a job waits this folds into it, while one runs exactly one
 * follow-up is made, however many runs ask.
 */
export async function enqueueDependentRuns(
  queue: SyncQueue,
  settings: Pick<Settings, 'streams'>,
  summary: PartitionSummary,
): Promise<EnqueuedRun[]> {
  if (summary.dryRun) return [];
  const configured = configuredStreams(settings);
  const targets: Array<Pick<SyncJobData, 'stream' | 'partition'>> = [];
  if (summary.records + summary.deleted > 0)
    for (const child of childStreamsOf(summary.stream)) targets.push({ stream: child, partition: '' });
  if (summary.inserted + summary.updated + summary.deleted > 0)
    for (const reader of idsReadersOf(summary.stream))
      targets.push({ stream: reader, partition: readsOwnOperator(reader) ? summary.partition : '' });
  const runs: EnqueuedRun[] = [];
  for (const target of targets.filter((target) => configured.includes(target.stream)))
    runs.push(await enqueueRun(queue, { ...target, trigger: 'parent' }));
  return runs;
}
