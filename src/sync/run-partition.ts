import type { Settings } from '../../config/settings.js';
import type { StreamDefinition } from '../../config/stream-definition.js';
import { type StreamName, streams } from '../../config/streams.js';
import type { DeleteGuard } from '../store/store.js';
import { describeError } from '../tms-sync-error.js';
import type { EngineContext } from './engine-context.js';
import { emptyTally, type PartitionOutcome, type PartitionSummary, type RunOptions } from './run-options.js';
import { strategyOf } from './strategies/index.js';

/**
 * Runs one partition of one stream once, recorded in `sync_runs`; its summary says how it ended
 * (a failure is in the summary, with the error as `cause`, never thrown).
 */
export async function runPartition(
  ctx: EngineContext,
  stream: StreamName,
  partition: string,
  options: RunOptions = {},
): Promise<PartitionSummary> {
  const definition: StreamDefinition = streams[stream];
  const started = Date.now();
  const run = await ctx.store.openRun({
    stream,
    partition,
    trigger: options.trigger ?? 'cli',
    now: ctx.now,
    dryRun: options.dryRun ?? false,
    guard: guardOf(ctx.settings, options),
    signal: options.signal,
    onCommit: (counts) =>
      options.onProgress?.({ ...counts, stream, partition, elapsedMs: Date.now() - started }),
  });
  const log = ctx.logger.child({ stream, partition, runId: run.runId });
  let result: PartitionOutcome = 'succeeded';
  let failure: unknown;
  try {
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
      signal: options.signal,
      run,
    });
  } catch (error) {
    result = options.signal?.aborted ? 'aborted' : 'failed';
    failure = error;
  }
  const summary = {
    ...run.counts,
    ...outcome(stream, partition, options, result, failure),
    runId: run.runId,
    durationMs: Date.now() - started,
  };
  await run.finish({ result, error: summary.error });
  const counts = { ...run.counts };
  if (result === 'succeeded') log.info(counts, 'run succeeded');
  else log.error({ ...counts, error: summary.error }, `run ${result}`);
  if (counts.held > 0)
    log.warn(
      { held: counts.held },
      `deletes held back by the mass-delete guard; see tms-sync status, apply with tms-sync approve-deletes ${stream}`,
    );
  return summary;
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

/** The summary of a run that could not start (its partitions could not be listed). */
export function notStarted(stream: string, options: RunOptions, error: unknown): PartitionSummary {
  return { ...emptyTally(), ...outcome(stream, '', options, 'failed', error), runId: null, durationMs: 0 };
}

function outcome(
  stream: string,
  partition: string,
  options: RunOptions,
  result: PartitionOutcome,
  error: unknown,
) {
  const failure = error === undefined ? { error: null } : { error: describeError(error), cause: error };
  return { stream, partition, result, ...failure, dryRun: options.dryRun ?? false };
}
