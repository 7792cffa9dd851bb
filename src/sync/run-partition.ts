import type { Settings } from '../../config/settings.js';
import type { StreamDefinition } from '../../config/stream-definition.js';
import { type StreamName, streams } from '../../config/streams.js';
import type { StopSignal } from '../linked-signals.js';
import type { DeleteGuard, PartitionRun, PlanReads } from '../store/store.js';
import { describeError } from '../tms-sync-error.js';
import { checkAccess } from './check-access.js';
import type { EngineContext } from './engine-context.js';
import { startRunBound } from './run-bound.js';
import { type RunLog, runLog } from './run-log.js';
import {
  emptyTally,
  type PartitionOutcome,
  type PartitionSummary,
  type RunOptions,
  type RunTally,
} from './run-options.js';
import { strategyOf } from './strategies/index.js';
import { dependenciesOf, liveListingOf, partitionLabel, readsOwnOperator } from './stream-order.js';

/**
 * Runs one partition of one stream once, recorded in `sync_runs`; its summary says how it ended
 * (a failure is in the summary, with the error as `cause`, never thrown). A partition that reads
 * another stream's rows (a child, the goods of the tasks) is `skipped` while that stream has never
 * been synced. The first run of a process logs in first (check-access.ts): a wrong URL or token
 * fails it at once, naming the setting. A run of a plan of many partitions reads with the plan
 * (`planReads`, plan-reads.ts).
 */
export async function runPartition(
  ctx: EngineContext,
  stream: StreamName,
  partition: string,
  options: RunOptions = {},
  planReads?: PlanReads,
): Promise<PartitionSummary> {
  const waitingFor = await neverSynced(ctx, stream, partition, planReads);
  if (waitingFor) {
    const reason = `${waitingFor} has never been synced (${stream} reads its rows): sync ${waitingFor} first, or both together`;
    ctx.logger.warn({ stream, partition }, `skipped: ${reason}`);
    return skippedPartition({ stream, partition }, options, reason);
  }
  const definition: StreamDefinition = streams[stream];
  const started = Date.now();
  const limits = boundOf(ctx, definition);
  const bound = startRunBound({ stream, partition }, limits, options.signal);
  const signal = bound.signal;
  let run: PartitionRun;
  try {
    run = await ctx.store.openRun({
      stream,
      partition,
      trigger: options.trigger ?? 'cli',
      now: ctx.now,
      dryRun: options.dryRun ?? false,
      guard: guardOf(ctx.settings, options),
      signal,
      maxPages: limits.maxRunPages,
      planReads,
      readsOwnScope: definition.strategy === 'snapshot',
      onCommit: (counts) => {
        bound.committed(counts.pages);
        options.onProgress?.({ stream, partition, elapsedMs: Date.now() - started, ...counts });
      },
    });
  } catch (error) {
    bound.end();
    throw error;
  }
  // The run's id is known once its row is written (at its first write, or as it ends: partition-run.ts).
  const log = runLog(ctx.logger, { stream, partition });
  let result: PartitionOutcome = 'succeeded';
  let failure: unknown;
  try {
    await checkAccess(ctx.client, ctx.settings, ctx.logger, options.signal);
    await strategyOf(definition).run({
      stream,
      definition,
      partition,
      client: ctx.client,
      settings: ctx.settings,
      logger: log,
      now: ctx.now,
      full: options.full ?? false,
      reconcile: options.reconcile ?? false,
      signal,
      run,
      giveWay: giveWayOf(options, signal),
    });
  } catch (error) {
    result = options.signal?.aborted ? 'interrupted' : 'failed';
    // Past its bound the run stopped as if asked to; what it failed with is the bound.
    failure = result === 'failed' ? (bound.exceeded ?? error) : error;
  } finally {
    bound.end();
  }
  const durationMs = Date.now() - started;
  const ended = outcome(stream, partition, options, result, failure);
  await run.finish({ result, error: ended.error });
  const summary = summaryOf(ended, run.runId, durationMs, run.counts);
  logEnd(log, result, run, summary);
  if (run.counts.held > 0)
    log.warn(
      { held: run.counts.held },
      `deletes held back by the mass-delete guard; see tms-sync status, apply with tms-sync approve-deletes ${stream}`,
    );
  return summary;
}

const keepGoing = () => Promise.resolve();

/** The run's last line, its counts in it: built only when its level is logged (an idle cycle ends thousands of runs). */
function logEnd(log: RunLog, result: PartitionOutcome, run: PartitionRun, summary: PartitionSummary): void {
  if (!log.enabled(result === 'failed' ? 'error' : 'info')) return;
  const counts = { runId: run.runId, ...run.counts };
  if (result === 'succeeded') log.info(counts, 'run succeeded');
  // Asked to stop (a graceful shutdown): nothing went wrong, the next run resumes from the checkpoint.
  else if (result === 'interrupted') log.info(counts, 'run interrupted; it resumes from its checkpoint');
  else log.error({ ...counts, error: summary.error }, 'run failed');
}

/**
 * A run's bound (`sync.maxRunPages`, `sync.maxRunSeconds`). The pages bound is for a listing that
 * never ends; a child stream's pages are its parents, one each from the queue the store holds, so
 * its run ends when they do: an account of 200,000 invoices is 200,000 pages of `invoice_lines`, and
 * the bound failed its backfill halfway. Its time bound stays.
 */
function boundOf(ctx: EngineContext, definition: StreamDefinition) {
  const { maxRunPages, maxRunSeconds } = ctx.settings.sync;
  return {
    maxRunPages: definition.strategy === 'child' ? Number.POSITIVE_INFINITY : maxRunPages,
    maxRunSeconds,
  };
}

function giveWayOf(options: RunOptions, signal: StopSignal): () => Promise<void> {
  const { giveWay } = options;
  return giveWay ? () => giveWay(signal) : keepGoing;
}

/** The mass-delete guard of a run: the settings' thresholds, everything applied with `--approve-deletes`. */
function guardOf(settings: Settings, options: RunOptions): DeleteGuard {
  const { maxDeleteShare, guardMinRows, guardMinScopes } = settings.sync;
  return {
    maxShare: maxDeleteShare,
    minRows: guardMinRows,
    minScopes: guardMinScopes,
    approveAll: options.approveDeletes ?? false,
  };
}

/** The summary of a partition that did not run, and why. */
export function skippedPartition(
  target: { readonly stream: string; readonly partition: string },
  options: RunOptions,
  reason: string,
): PartitionSummary {
  const { stream, partition } = target;
  const skipped = { ...outcome(stream, partition, options, 'skipped', undefined), error: reason };
  return summaryOf(skipped, null, 0, emptyTally());
}

/**
 * A partition's summary, every member written out: a sync keeps every partition's, and a literal
 * with spreads left most of its members in a second array (~2.5 MB of the ~26 MB live at 2,000
 * operators), and on Node 20 a hidden class of its own (docs/performance-history.md, "Hidden classes").
 */
function summaryOf(
  ended: Outcome,
  runId: number | null,
  durationMs: number,
  tally: Readonly<RunTally>,
): PartitionSummary {
  const summary: { -readonly [K in keyof PartitionSummary]: PartitionSummary[K] } = {
    stream: ended.stream,
    partition: ended.partition,
    runId,
    result: ended.result,
    error: ended.error,
    durationMs,
    dryRun: ended.dryRun,
    pages: tally.pages,
    records: tally.records,
    inserted: tally.inserted,
    updated: tally.updated,
    unchanged: tally.unchanged,
    older: tally.older,
    deleted: tally.deleted,
    drift: tally.drift,
    held: tally.held,
    watermark: tally.watermark,
  };
  if (ended.cause !== undefined) summary.cause = ended.cause;
  return summary;
}

/**
 * The first stream partition this one reads from that has no committed state at all (its own
 * operator's, a since listing's live one, else any): one keyed read per dependency, whatever the
 * number of partitions.
 */
async function neverSynced(ctx: EngineContext, stream: string, partition: string, planReads?: PlanReads) {
  const reads = planReads ?? ctx.store;
  for (const dependency of dependenciesOf(stream)) {
    const own = readsOwnOperator(stream) ? partition : liveListingOf(dependency);
    if (await reads.everCommitted(dependency, own)) continue;
    return own === undefined ? dependency : partitionLabel({ stream: dependency, partition: own });
  }
  return undefined;
}

interface Outcome {
  readonly stream: string;
  readonly partition: string;
  readonly result: PartitionOutcome;
  readonly error: string | null;
  readonly cause?: unknown;
  readonly dryRun: boolean;
}

function outcome(
  stream: string,
  partition: string,
  options: RunOptions,
  result: PartitionOutcome,
  error: unknown,
): Outcome {
  const failure = error === undefined ? { error: null } : { error: describeError(error), cause: error };
  return { stream, partition, result, ...failure, dryRun: options.dryRun ?? false };
}
