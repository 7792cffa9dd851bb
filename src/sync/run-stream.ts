import type { StreamDefinition } from '../../config/stream-definition.js';
import { type StreamName, streams } from '../../config/streams.js';
import type { EngineContext } from './engine-context.js';
import { createPartitionJob } from './partition-job.js';
import { emptyTally, type PartitionOutcome, type PartitionSummary, type RunOptions } from './run-options.js';
import { strategyOf } from './strategies/index.js';
import type { StreamStrategy } from './stream-strategy.js';

/**
 * Runs every partition of one stream once (or the one `options.partition` names), each recorded in
 * `sync_runs`. A partition that fails does not stop the others; its summary says why.
 */
export async function runStream(
  ctx: EngineContext,
  stream: StreamName,
  options: RunOptions = {},
): Promise<PartitionSummary[]> {
  const definition: StreamDefinition = streams[stream];
  const strategy = strategyOf(definition);
  let partitions: string[];
  try {
    partitions = options.partition !== undefined ? [options.partition] : strategy.partitions(definition, ctx);
  } catch (error) {
    return [
      { ...emptyTally(), ...outcome(stream, '', options, 'failed', error), runId: null, durationMs: 0 },
    ];
  }
  const summaries: PartitionSummary[] = [];
  for (const partition of partitions) {
    if (options.signal?.aborted) break;
    summaries.push(await runPartition(ctx, { stream, definition, strategy, partition }, options));
  }
  return summaries;
}

interface PartitionTarget {
  readonly stream: string;
  readonly definition: StreamDefinition;
  readonly strategy: StreamStrategy;
  readonly partition: string;
}

async function runPartition(
  ctx: EngineContext,
  target: PartitionTarget,
  options: RunOptions,
): Promise<PartitionSummary> {
  const { stream, definition, strategy, partition } = target;
  const started = Date.now();
  const runId = options.dryRun
    ? null
    : await ctx.store.startRun({ stream, partition, trigger: options.trigger ?? 'cli', now: ctx.now() });
  const tally = emptyTally();
  const log = ctx.logger.child({ stream, partition, runId });
  const report = () => options.onProgress?.({ ...tally, stream, partition, elapsedMs: Date.now() - started });
  const job = createPartitionJob({ stream, definition, partition, ctx, options, runId, tally }, report);
  let result: PartitionOutcome = 'succeeded';
  let failure: unknown;
  try {
    await strategy.run(job);
  } catch (error) {
    result = options.signal?.aborted ? 'aborted' : 'failed';
    failure = error;
  }
  const summary = {
    ...tally,
    ...outcome(stream, partition, options, result, failure),
    runId,
    durationMs: Date.now() - started,
  };
  if (runId !== null) {
    await ctx.store.finishRun(runId, { ...tally, result, error: summary.error, now: ctx.now() });
  }
  if (result === 'succeeded') log.info({ ...tally }, 'run succeeded');
  else log.error({ ...tally, error: summary.error }, `run ${result}`);
  return summary;
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

/** One line for `sync_runs.error` and the summary: the error's own one-line form, never a token. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const text = String(error);
    return text.startsWith(error.name) ? text : `${error.name}: ${error.message}`;
  }
  return String(error);
}
