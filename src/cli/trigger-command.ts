import type { Command } from 'commander';
import { loadSettings } from '../../config/load-settings.js';
import type { Settings } from '../../config/settings.js';
import { type EnqueuedRun, enqueueStreams } from '../../jobs/enqueue-run.js';
import { followRuns } from '../../jobs/follow-runs.js';
import { partitionLabel, type SyncJobProgress } from '../../jobs/sync-job.js';
import { openRedis, openSyncQueue } from '../../jobs/sync-queue.js';
import { exitCodes, runCommand, UsageError } from './cli-failure.js';
import { formatSummary } from './summary-table.js';
import { allSucceeded } from './sync-command.js';

interface TriggerFlags {
  full?: boolean;
  reconcile?: boolean;
  wait?: boolean;
  timeout: string;
}

export function registerTriggerCommand(program: Command): void {
  program
    .command('trigger')
    .description('Enqueue manual sync jobs for the worker (one per stream partition).')
    .argument('<stream...>', 'streams of the catalogue, or "all"')
    .option('--full', 'ignore watermarks for this run (a re-sync)')
    .option('--reconcile', 'also detect hard deletes by a full id scan')
    .option('--wait', 'follow the jobs to their end; exit 0 only when all succeeded')
    .option('--timeout <seconds>', 'with --wait: give up after this long', '3600')
    .addHelpText(
      'after',
      '\nExit code: 0 enqueued (with --wait: all succeeded), 1 a job failed or --wait timed out, 2 bad usage or configuration.',
    )
    .action((names: string[], flags: TriggerFlags) =>
      runCommand('trigger', () => trigger(loadSettings(), names, flags)),
    );
}

/** Enqueues the runs and, with `--wait`, follows them; resolves with the exit code. */
export async function trigger(settings: Settings, names: string[], flags: TriggerFlags): Promise<number> {
  const timeoutSeconds = Number(flags.timeout);
  if (!(timeoutSeconds > 0)) throw new UsageError(`--timeout: expected seconds > 0, got "${flags.timeout}"`);
  const streams = names.includes('all') ? [] : names;
  const redis = openRedis(settings);
  const queue = openSyncQueue(settings, redis);
  try {
    const request = { streams, trigger: 'manual' as const, full: flags.full, reconcile: flags.reconcile };
    const { runs, skipped } = await enqueueStreams(queue, settings, request);
    for (const { stream, reason } of skipped) process.stderr.write(`skipped ${stream}: ${reason}\n`);
    process.stdout.write(formatEnqueued(runs));
    if (!flags.wait) return exitCodes.ok;
    const summaries = await followRuns(queue, runs, {
      onProgress: printProgress,
      timeoutMs: timeoutSeconds * 1000,
    });
    process.stdout.write(`\n${formatSummary(summaries)}`);
    return allSucceeded(summaries) ? exitCodes.ok : exitCodes.failed;
  } finally {
    await queue.close();
    await redis.quit().catch(() => undefined);
  }
}

function formatEnqueued(runs: readonly EnqueuedRun[]): string {
  const width = Math.max(6, ...runs.map((run) => partitionLabel(run.data).length));
  const lines = runs.map(
    (run) => `${partitionLabel(run.data).padEnd(width)}  ${run.state.padEnd(12)}  ${run.jobId}`,
  );
  return [`${'stream'.padEnd(width)}  ${'state'.padEnd(12)}  job`, ...lines, ''].join('\n');
}

function printProgress(run: EnqueuedRun, progress: SyncJobProgress): void {
  const records = progress.records.toLocaleString('en-US');
  process.stderr.write(`${partitionLabel(run.data)}: ${progress.pages} pages, ${records} records\n`);
}
