import type { Command } from 'commander';
import { loadSettings } from '../../config/load-settings.js';
import type { PartitionSummary, RunOptions } from '../sync/run-options.js';
import { createSyncEngine, resolveStreams, type SyncEngine } from '../sync/sync-engine.js';
import { exitCodes, runCommand } from './cli-failure.js';
import { cliLogger } from './cli-logger.js';
import { createProgressLine } from './progress-line.js';
import { formatSummary } from './summary-table.js';

interface SyncFlags {
  full?: boolean;
  reconcile?: boolean;
  dryRun?: boolean;
  approveDeletes?: boolean;
}

export function registerSyncCommand(program: Command): void {
  program
    .command('sync')
    .description('Run the named streams (default: all) once, in-process, without Redis.')
    .argument('[stream...]', 'streams of the catalogue (docs/streams.md)')
    .option('--full', 'ignore watermarks for this run (a re-sync)')
    .option('--reconcile', 'also detect hard deletes by a full id scan')
    .option('--dry-run', 'report what would change; write nothing')
    .option('--approve-deletes', 'apply the deletes the mass-delete guard would hold back (this run only)')
    .addHelpText(
      'after',
      '\nExit code: 0 when every stream succeeded, 1 when one failed, 2 for bad usage or configuration.',
    )
    .action((names: string[], flags: SyncFlags) => runCommand('sync', () => sync(names, flags)));
}

async function sync(names: string[], flags: SyncFlags): Promise<number> {
  const settings = loadSettings();
  const streams = resolveStreams(names);
  const engine = await createSyncEngine({ settings, logger: cliLogger(settings) });
  const summaries = await runShowingProgress(engine, streams, flags).finally(() => engine.close());
  process.stdout.write(formatSummary(summaries));
  return allSucceeded(summaries) ? exitCodes.ok : exitCodes.failed;
}

/** `engine.run` from the terminal: stopped by SIGINT/SIGTERM, progress on stderr when it is a TTY. */
export function runShowingProgress(
  engine: SyncEngine,
  streams: readonly string[],
  options: Omit<RunOptions, 'signal' | 'onProgress' | 'onPartitionDone'> = {},
): Promise<PartitionSummary[]> {
  return runWithSignals((signal) => {
    const progress = createProgressLine(() => engine.context.client.traffic());
    return engine
      .run(streams, {
        trigger: 'cli',
        ...options,
        signal,
        onProgress: progress.update,
        onPartitionDone: progress.partitionDone,
      })
      .finally(progress.done);
  });
}

/** Runs with an AbortSignal that SIGINT/SIGTERM fire: the run stops after the page in hand is committed. */
export async function runWithSignals<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('stopped by signal'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await run(controller.signal);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

export function allSucceeded(summaries: readonly PartitionSummary[]): boolean {
  return summaries.every((summary) => summary.result === 'succeeded');
}
