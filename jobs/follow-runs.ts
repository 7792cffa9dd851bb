import pMap from 'p-map';
import { emptyTally, type PartitionSummary } from '../src/sync/run-options.js';
import { QueueEvents } from './bullmq.js';
import type { EnqueuedRun } from './enqueue-run.js';
import { deduplicationIdOf, type QueueJobResult, ranPartition, type SyncJobProgress } from './sync-job.js';
import type { SyncQueue } from './sync-queue.js';

export interface FollowOptions {
  /** Called when a followed job reports new progress. @default nothing */
  readonly onProgress?: (run: EnqueuedRun, progress: SyncJobProgress) => void;
  /**
   * The jobs not yet heard of are looked up (an event missed, a job ended before the events were
   * read) at the start, then after this long without an end heard, and at least every minute.
   * @default 5000
   */
  readonly pollMs?: number;
  /** Give up (FollowTimeoutError) after this long. @default 3600000 */
  readonly timeoutMs?: number;
}

/** `--wait` ran out of time; the jobs go on in the queue. */
export class FollowTimeoutError extends Error {
  override readonly name = 'FollowTimeoutError';
}

/** How a job ended, as its event or, looked up, its state told it. */
interface JobEnd {
  readonly state: 'completed' | 'failed' | 'gone';
  readonly returnvalue?: QueueJobResult;
  readonly failedReason?: string;
}

/** Follows runs to their end from the queue's events, started before the runs are asked for. */
export interface RunFollower {
  /**
   * Follows every enqueued run to its end and returns one summary per run: the job's own summary
   * when it completed, a failed one carrying the job's `failedReason` otherwise. A request folded
   * into a running job is followed through that job and then through its follow-up, the run that
   * started after the request.
   */
  follow(runs: readonly EnqueuedRun[], options?: FollowOptions): Promise<PartitionSummary[]>;
  close(): Promise<void>;
}

/**
 * Job ends kept, for jobs followed later (the runs of a request end while its list is on its way)
 * or by more than one run. The oldest go first.
 */
const endsKept = 100_000;

/** Jobs looked up at once when their events were not heard. */
const lookupsInFlight = 64;

/** The longest between two look-ups of the jobs not heard of, however many ends are heard meanwhile. */
const lookUpAtLeastMs = 60_000;

/**
 * Starts reading the queue's events (BullMQ's QueueEvents, one blocking connection): a job's end
 * is heard once, however many runs are followed. Polling each job instead made `trigger all
 * --wait` of 20,019 partitions send 5 million Redis commands, and reported 972 runs that had
 * succeeded as gone: the queue keeps the last 1,000 completed jobs (sync-queue.ts).
 */
export async function startFollowing(queue: SyncQueue): Promise<RunFollower> {
  const events = new QueueEvents(queue.name, {
    connection: queue.opts.connection,
    prefix: queue.opts.prefix,
  });
  const ended = new Map<string, JobEnd>();
  const waiting = new Map<string, Array<(end: JobEnd) => void>>();
  const progressOf = new Map<string, (progress: unknown) => void>();
  let lastHeard = 0;
  const heard = (jobId: string, end: JobEnd) => {
    lastHeard = performance.now();
    ended.set(jobId, end);
    if (ended.size > endsKept) ended.delete(ended.keys().next().value!);
    const waiters = waiting.get(jobId);
    waiting.delete(jobId);
    for (const resolve of waiters ?? []) resolve(end);
  };
  events.on('completed', ({ jobId, returnvalue }) =>
    heard(jobId, { state: 'completed', returnvalue: returnvalue as unknown as QueueJobResult }),
  );
  events.on('failed', ({ jobId, failedReason }) => heard(jobId, { state: 'failed', failedReason }));
  events.on('progress', ({ jobId, data }) => progressOf.get(jobId)?.(data));
  events.on('error', () => undefined);
  await events.waitUntilReady();

  const jobs: FollowedJobs = {
    queue,
    progressOf,
    endOf: (jobId) => {
      const known = ended.get(jobId);
      if (known) return Promise.resolve(known);
      return new Promise((resolve) => waiting.set(jobId, [...(waiting.get(jobId) ?? []), resolve]));
    },
    async present(jobId) {
      return ended.has(jobId) || (await queue.getJob(jobId)) !== undefined ? jobId : undefined;
    },
  };

  /** The jobs waited for, looked up: an end not heard (before the events were read, or lost) is found here. */
  const lookUp = () =>
    pMap(
      [...waiting.keys()],
      async (jobId) => {
        const job = await queue.getJob(jobId);
        if (!job) return heard(jobId, { state: 'gone' });
        const state = await job.getState();
        if (state !== 'completed' && state !== 'failed') return progressOf.get(jobId)?.(job.progress);
        // Read again: the job read above may predate its end (no return value or reason yet).
        const finished = await queue.getJob(jobId);
        heard(jobId, { state, returnvalue: finished?.returnvalue, failedReason: finished?.failedReason });
      },
      { concurrency: lookupsInFlight },
    );

  return {
    async follow(runs, options = {}) {
      const timeoutMs = options.timeoutMs ?? 3_600_000;
      let timer: NodeJS.Timeout | undefined;
      let polling: NodeJS.Timeout | undefined;
      const pollMs = options.pollMs ?? 5000;
      let done = false;
      let lookedUp = Number.NEGATIVE_INFINITY;
      // While ends keep coming, the events are read: a look-up at most every `lookUpAtLeastMs`.
      const poll = async () => {
        const now = performance.now();
        if (now - lastHeard >= pollMs || now - lookedUp >= lookUpAtLeastMs) {
          lookedUp = now;
          await lookUp().catch(() => undefined);
        }
        if (!done) polling = setTimeout(poll, pollMs);
      };
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const pending = [...waiting.keys()];
          reject(
            new FollowTimeoutError(
              `${pending.length} job(s) not finished in time, ${pending[0] ?? 'none'} among them (they go on in the queue)`,
            ),
          );
        }, timeoutMs);
      });
      try {
        const following = Promise.all(runs.map((run) => followRun(jobs, run, options.onProgress)));
        void poll();
        return await Promise.race([following, timedOut]);
      } finally {
        done = true;
        clearTimeout(timer);
        clearTimeout(polling);
      }
    },
    close: () => events.close(),
  };
}

/** Follows already enqueued runs (their events read from now on; what ended before is looked up). */
export async function followRuns(
  queue: SyncQueue,
  runs: readonly EnqueuedRun[],
  options: FollowOptions = {},
): Promise<PartitionSummary[]> {
  const follower = await startFollowing(queue);
  try {
    return await follower.follow(runs, options);
  } finally {
    await follower.close();
  }
}

/** What a followed run reads of the queue's jobs. */
interface FollowedJobs {
  readonly queue: SyncQueue;
  /** The job's end, heard or looked up; `gone` when the queue no longer has it and none was heard. */
  endOf(jobId: string): Promise<JobEnd>;
  /** The id, if the queue has the job or its end was heard. */
  present(jobId: string): Promise<string | undefined>;
  readonly progressOf: Map<string, (progress: unknown) => void>;
}

async function followRun(
  jobs: FollowedJobs,
  run: EnqueuedRun,
  onProgress: FollowOptions['onProgress'],
): Promise<PartitionSummary> {
  const { queue, endOf, present, progressOf } = jobs;
  const partitionJob = async () =>
    (await queue.getDeduplicationJobId(deduplicationIdOf(run.data))) ?? undefined;
  /** The job a tick handed its run to. A follow-up is added as the run it follows ends: that run is waited for first. */
  const handedTo = async (enqueued: string, tick: string) => {
    const found = await present(enqueued);
    if (found) return found;
    const holder = await partitionJob();
    if (!holder || holder === tick) return holder;
    await endOf(holder);
    return (await present(enqueued)) ?? (await partitionJob());
  };
  const waitFor = async (jobId: string): Promise<PartitionSummary> => {
    let last = '';
    if (onProgress)
      progressOf.set(jobId, (progress) => {
        const text = JSON.stringify(progress);
        if (typeof progress === 'object' && progress !== null && text !== last)
          onProgress(run, progress as SyncJobProgress);
        last = text;
      });
    const end = await endOf(jobId);
    progressOf.delete(jobId);
    if (end.state === 'gone') return failedSummary(run, `job ${jobId} is gone from the queue`);
    const result = end.returnvalue;
    if (end.state === 'completed' && ranPartition(result)) return result;
    // A tick that handed its run over (sync-processor.ts): the run is that job's, or, replaced
    // by a later request, the partition's job now.
    if (end.state === 'completed' && result && 'enqueued' in result) {
      const next = await handedTo(result.enqueued, jobId);
      if (next && next !== jobId) return waitFor(next);
    }
    return failedSummary(run, end.failedReason ?? 'failed');
  };
  let summary = await waitFor(run.jobId);
  if (run.state === 'follow-up') {
    // The request's own job, once the run it follows ended; or, replaced by a later request, the partition's job now.
    const followUp = (await present(run.requestedId)) ?? (await partitionJob());
    if (followUp && followUp !== run.jobId) summary = await waitFor(followUp);
  }
  return summary;
}

function failedSummary(run: EnqueuedRun, error: string): PartitionSummary {
  const { stream, partition } = run.data;
  return {
    ...emptyTally(),
    stream,
    partition,
    runId: null,
    result: 'failed',
    error,
    durationMs: 0,
    dryRun: false,
  };
}
