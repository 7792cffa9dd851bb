import type { WorkerSettings } from '../config/worker-settings.js';
import type { RequestBudget } from '../src/client/index.js';
import { redactSecrets } from '../src/secrets/secret-registry.js';
import type { PartitionSummary } from '../src/sync/run-options.js';
import { retryDecisionOf } from '../src/tms-sync-error.js';
import { DelayedError, UnrecoverableError } from './bullmq.js';
import type { SyncJob, SyncJobResult } from './sync-job.js';

const handOverDelayMs = 1000;
/**
 * A job waiting out a pause looks again at least this often (no request, only the pause key): a
 * pause lifted by hand (its Redis key deleted) frees the jobs within this time.
 */
const pauseRecheckMs = 5 * 60_000;

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
  // BullMQ keeps the message as `failedReason` (the dashboard, status): no secret goes there.
  const message = redactSecrets(String(failure));
  if (decision.kind === 'wait') {
    const { afterMs } = decision;
    return { kind: 'rate-limited', message, ...(afterMs === undefined ? {} : { retryAfterMs: afterMs }) };
  }
  const kinds = { permanent: 'unrecoverable', superseded: 'conflict', transient: 'transient' } as const;
  return { kind: kinds[decision.kind], message };
}

/** The error of a failed partition run (its line when a summary came without the object). */
function failureOf(summary: PartitionSummary): unknown {
  return summary.cause ?? summary.error;
}

export interface SettleContext {
  readonly job: SyncJob;
  readonly token: string | undefined;
  /** The TMS allowance the fleet shares: its pause is what every worker waits out after a 429. */
  readonly budget: Pick<RequestBudget, 'pause' | 'pausedForMs'>;
  readonly settings: Pick<WorkerSettings, 'rateLimitPauseMs' | 'lockMs'>;
}

/**
 * THE mapping of a run's outcome to BullMQ, for every job:
 * - succeeded: the job completes with the run's counts;
 * - skipped (a stream it reads from was never synced): the job completes with the reason;
 * - superseded (StateConflictError: another run moved the state): completes, no retry;
 * - stopped (shutdown, lost lock): handed over to the next worker, no attempt counted; it resumes from the checkpoint;
 * - wait (a 429 past the request's ceiling, or a pause longer than it): the fleet's request budget is
 *   paused for the Retry-After (else RATE_LIMIT_PAUSE_MS), so every worker's requests hold off and
 *   every worker delays its jobs while it lasts; this job is delayed until the pause ends, no attempt
 *   counted, its lock given back (it waits delayed, not active);
 * - unrecoverable (configuration, auth, data the server broke): fails at once, kept for inspection;
 * - anything else: throws, BullMQ retries with exponential back-off until `attempts`.
 */
export async function settleRun(ctx: SettleContext, summary: PartitionSummary): Promise<SyncJobResult> {
  if (summary.result === 'succeeded' || summary.result === 'skipped') return storable(summary);
  if (summary.result === 'interrupted') return putBack(ctx);
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
 * Every sender holds off (the budget's pause): the job waits delayed until the pause ends, looking
 * again at least every few minutes; no attempt counted, no lock held meanwhile.
 */
export async function waitOutPause(ctx: SettleContext, pausedForMs: number): Promise<never> {
  const delayMs = Math.min(Math.max(1, pausedForMs), pauseRecheckMs);
  await ctx.job.moveToDelayed(Date.now() + delayMs, ctx.token);
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
    await ctx.budget.pause(failure.retryAfterMs ?? ctx.settings.rateLimitPauseMs);
    return waitOutPause(ctx, await ctx.budget.pausedForMs());
  }
  if (failure.kind === 'unrecoverable') throw new UnrecoverableError(failure.message);
  throw new Error(failure.message);
}

/** The summary as the job's return value: without the error object, which JSON cannot carry. */
function storable(summary: PartitionSummary): SyncJobResult {
  const { cause: _cause, ...rest } = summary;
  return rest;
}
