import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import type { WorkerSettings } from '../config/worker-settings.js';
import type { PartitionSummary } from '../src/sync/run-options.js';
import { retryDecisionOf } from '../src/tms-sync-error.js';
import type { SyncJob, SyncJobResult } from './sync-job.js';
import type { SyncQueue } from './sync-queue.js';

const handOverDelayMs = 1000;

/** What a failed run calls for. */
export type FailureKind = 'rate-limited' | 'conflict' | 'unrecoverable' | 'transient';

export interface Failure {
  readonly kind: FailureKind;
  readonly message: string;
  /** The TMS's Retry-After, when the failure was a 429 that carried one. */
  readonly retryAfterMs?: number;
}

/**
 * What a run's failure calls for, read from the error's own retry decision (src/tms-sync-error.ts):
 * permanent -> unrecoverable, wait -> rate-limited (with the Retry-After), superseded -> conflict,
 * transient (and any error of no kind of ours) -> transient.
 */
export function classifyFailure(failure: unknown): Failure {
  const decision = retryDecisionOf(failure);
  const message = String(failure);
  if (decision.kind === 'wait') {
    const { afterMs } = decision;
    return { kind: 'rate-limited', message, ...(afterMs === undefined ? {} : { retryAfterMs: afterMs }) };
  }
  const kinds = { permanent: 'unrecoverable', superseded: 'conflict', transient: 'transient' } as const;
  return { kind: kinds[decision.kind], message };
}

/** The error of a failed partition run (its line when a summary came without the object). */
export function failureOf(summary: PartitionSummary): unknown {
  return summary.cause ?? summary.error;
}

export interface SettleContext {
  readonly job: SyncJob;
  readonly token: string | undefined;
  readonly queue: SyncQueue;
  readonly settings: Pick<WorkerSettings, 'rateLimitPauseMs' | 'lockMs'>;
}

/**
 * THE mapping of a run's outcome to BullMQ, for every job:
 * - succeeded: the job completes with the run's counts;
 * - superseded (StateConflictError: another run moved the state): completes, no retry;
 * - stopped (shutdown, lost lock): handed over to the next worker, no attempt counted; it resumes from the checkpoint;
 * - 429: the whole queue pauses for the Retry-After (every worker backs off), the job waits, no attempt counted;
 * - unrecoverable (configuration, auth, data the server broke): fails at once, kept for inspection;
 * - anything else: throws, BullMQ retries with exponential back-off until `attempts`.
 */
export async function settleRun(ctx: SettleContext, summary: PartitionSummary): Promise<SyncJobResult> {
  if (summary.result === 'succeeded') return storable(summary);
  if (summary.result === 'aborted') return putBack(ctx);
  const failure = classifyFailure(failureOf(summary));
  if (failure.kind === 'conflict') return storable(summary);
  return throwFailure(ctx, failure);
}

/** An error thrown before or around the run (store unreachable, unknown stream): the same mapping. */
export async function settleError(ctx: SettleContext, error: unknown): Promise<never> {
  return throwFailure(ctx, classifyFailure(error));
}

/** Another run holds the partition: try again after about one lock period, no attempt counted. */
export async function postpone(ctx: SettleContext): Promise<never> {
  await ctx.job.moveToDelayed(Date.now() + Math.ceil(ctx.settings.lockMs / 3), ctx.token);
  throw new DelayedError();
}

/**
 * The worker is stopping (or lost the partition lock): the job goes back for another worker, no
 * attempt counted. Delayed by a moment rather than put straight back to waiting, so that the
 * stopping worker's own in-flight fetch cannot take it again.
 */
export async function putBack(ctx: SettleContext): Promise<never> {
  await ctx.job.moveToDelayed(Date.now() + handOverDelayMs, ctx.token);
  throw new DelayedError();
}

async function throwFailure(ctx: SettleContext, failure: Failure): Promise<never> {
  if (failure.kind === 'rate-limited') {
    await ctx.queue.rateLimit(failure.retryAfterMs ?? ctx.settings.rateLimitPauseMs);
    throw Worker.RateLimitError();
  }
  if (failure.kind === 'unrecoverable') throw new UnrecoverableError(failure.message);
  throw new Error(failure.message);
}

/** The summary as the job's return value: without the error object, which JSON cannot carry. */
function storable(summary: PartitionSummary): SyncJobResult {
  const { cause: _cause, ...rest } = summary;
  return rest;
}
