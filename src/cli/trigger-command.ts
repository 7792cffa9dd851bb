import type { Command } from 'commander';
import type { Settings } from '../../config/settings.js';
import { connectRedis } from '../../jobs/connect-redis.js';
import type { EnqueuedRun } from '../../jobs/enqueue-run.js';
import { type RunFollower, startFollowing } from '../../jobs/follow-runs.js';
import { requestRuns } from '../../jobs/request-runs.js';
import { partitionLabel, type RequestResult, type SyncJobProgress } from '../../jobs/sync-job.js';
import { openSyncQueue } from '../../jobs/sync-queue.js';
import { loadConnection } from '../connections/load-connection.js';
import { checkStreamNames, formatSkipped } from '../sync/select-partitions.js';
import { exitCodes, runCommand, UsageError } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { streamRows, valueCounts } from './stream-rows.js';
import { formatSummary } from './summary-table.js';
import { allSucceeded } from './sync-command.js';
import { formatTable } from './text-table.js';
import { thousands } from './thousands.js';

interface TriggerFlags {
  full?: boolean;
  reconcile?: boolean;
  wait?: boolean;
  timeout: string;
}

export function registerTriggerCommand(program: Command): void {
  program
    .command('trigger')
    .description(
      'Ask the worker for manual runs of streams or partitions; the worker expands them with its own configuration.',
    )
    .argument(
      '<stream...>',
      'streams or partitions (tasks/1001) of the catalogue, or "all" (the worker\'s configured streams)',
    )
    .option('--full', 'ignore watermarks for this run (a re-sync)')
    .option('--reconcile', 'also detect hard deletes by a full id scan')
    .option('--wait', 'follow the jobs to their end; exit 0 only when none failed')
    .option('--timeout <seconds>', 'with --wait: give up after this long', '3600')
    .addHelpText(
      'after',
      '\nThe request is a job the worker turns into one run per partition, so "all" and a stream name mean\n' +
        "the worker's streams and partitions (its TMS_OPERATORS, its streams.include/exclude), not this\n" +
        "terminal's. Without --wait it waits up to 10 s for a worker to take the request. With --connection\n" +
        "NAME the request goes to that connection's queue, for a worker started with the same --connection.\n" +
        'Exit code: 0 enqueued (with --wait: none failed), 1 a job failed or --wait timed out, 2 bad usage or\n' +
        'configuration (an unknown partition, a stream the worker lacks the configuration for, Redis not\n' +
        'reachable within 5 s).',
    )
    .addOption(connectionOption())
    .action((names: string[], flags: TriggerFlags & ConnectionFlag) =>
      runCommand('trigger', async () => trigger(await loadConnection(flags.connection), names, flags)),
    );
}

/**
 * Enqueues the request, prints the runs the worker made of it and, with `--wait`, follows them;
 * resolves with the exit code. Without `--wait`, waits `expansionWaitMs` (default 10 s) for a worker.
 */
export async function trigger(
  settings: Settings,
  names: string[],
  flags: TriggerFlags,
  { expansionWaitMs = 10_000 } = {},
): Promise<number> {
  const timeoutSeconds = Number(flags.timeout);
  if (!(timeoutSeconds > 0)) throw new UsageError(`--timeout: expected seconds > 0, got "${flags.timeout}"`);
  const targets = names.includes('all') ? [] : names;
  checkStreamNames(targets);
  const redis = await connectRedis(settings);
  const queue = openSyncQueue(settings, redis);
  let follower: RunFollower | undefined;
  try {
    // Listening before asking: the first runs may end before the worker has listed them all.
    if (flags.wait) follower = await startFollowing(queue);
    const request = { targets, trigger: 'manual' as const, full: flags.full, reconcile: flags.reconcile };
    const waitMs = flags.wait ? timeoutSeconds * 1000 : expansionWaitMs;
    const outcome = await requestRuns(queue, request, { timeoutMs: waitMs });
    if (outcome.state === 'refused')
      throw new UsageError(`the worker refused the request: ${outcome.reason}`);
    if (outcome.state === 'waiting') {
      process.stdout.write(
        `request ${outcome.jobId} queued; no worker took it within ${Math.round(waitMs / 1000)} s ` +
          '(is `tms-sync worker` running on this queue?); the next worker that starts runs it\n',
      );
      return flags.wait ? exitCodes.failed : exitCodes.ok;
    }
    const { runs, skipped } = outcome.result;
    for (const line of formatSkipped(skipped)) process.stderr.write(`${line}\n`);
    process.stdout.write(formatEnqueued(runs));
    if (!follower) return exitCodes.ok;
    const summaries = await follower.follow(runs, {
      onProgress: printProgress,
      timeoutMs: timeoutSeconds * 1000,
    });
    process.stdout.write(`\n${formatSummary(summaries)}`);
    return allSucceeded(summaries) ? exitCodes.ok : exitCodes.failed;
  } finally {
    await follower?.close();
    await queue.close();
    await redis.quit().catch(() => undefined);
  }
}

type Enqueued = RequestResult['runs'][number];

/** The runs the worker made of the request: a line each, or one per stream of many partitions (its states counted). */
function formatEnqueued(runs: readonly Enqueued[]): string {
  const rows = streamRows(
    runs.map((run) => ({ stream: run.data.stream, run })),
    ({ run }) => [partitionLabel(run.data), run.state, run.jobId],
    (group) => [
      `${group[0]!.stream} (${thousands(group.length)} partitions)`,
      valueCounts(group.map(({ run }) => run.state)),
      '',
    ],
  );
  return formatTable(['stream', 'state', 'job'], rows);
}

function printProgress(run: EnqueuedRun, progress: SyncJobProgress): void {
  const records = thousands(progress.records);
  process.stderr.write(`${partitionLabel(run.data)}: ${progress.pages} pages, ${records} records\n`);
}
