import { setMaxListeners } from 'node:events';
import type { Command } from 'commander';
import { loadConnection } from '../connections/load-connection.js';
import type { PartitionSummary, RunOptions } from '../sync/run-options.js';
import { formatSkipped, selectPartitions } from '../sync/select-partitions.js';
import { createSyncEngine, type SyncEngine } from '../sync/sync-engine.js';
import { exitCodes, runCommand } from './cli-failure.js';
import { cliLogger } from './cli-logger.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { createProgressLine } from './progress-line.js';
import { formatSummary, formatTraffic } from './summary-table.js';

interface SyncFlags extends ConnectionFlag {
  full?: boolean;
  reconcile?: boolean;
  dryRun?: boolean;
  approveDeletes?: boolean;
}

export function registerSyncCommand(program: Command): void {
  program
    .command('sync')
    .description(
      'Run the named streams or partitions once (default: the configured streams), in-process, without Redis.',
    )
    .argument(
      '[stream...]',
      'streams of the catalogue (docs/streams.md) or partitions (tasks/1001, invoices/deleted); default: streams.include less streams.exclude of the config file',
    )
    .option('--full', 'ignore watermarks for this run (a re-sync)')
    .option('--reconcile', 'also detect hard deletes by a full id scan')
    .option('--dry-run', 'report what would change; write nothing')
    .option('--approve-deletes', 'apply the deletes the mass-delete guard would hold back (this run only)')
    .addHelpText(
      'after',
      '\nStreams without the configuration they need (the per-operator streams without TMS_OPERATORS) are\n' +
        'skipped with one warning; a stream reading one that failed is reported skipped.\n' +
        'Exit code: 0 when no stream failed, 1 when one failed, 2 for bad usage or configuration\n' +
        '(a wrong TMS_BASE_URL or TMS_API_TOKEN stops everything at once).\n' +
        'A run stops, failed, past sync.maxRunPages pages (a listing without end; a child stream, one\n' +
        'page a parent, has no page bound) or sync.maxRunSeconds; one request past\n' +
        'TMS_REQUEST_TIMEOUT_SECONDS (docs/retries.md).',
    )
    .addOption(connectionOption())
    .action((names: string[], flags: SyncFlags) => runCommand('sync', () => sync(names, flags)));
}

async function sync(names: string[], flags: SyncFlags): Promise<number> {
  const settings = await loadConnection(flags.connection);
  const { skipped } = selectPartitions(names, settings);
  const engine = await createSyncEngine({ settings, logger: cliLogger(settings) });
  for (const line of formatSkipped(skipped)) process.stderr.write(`tms-sync sync: ${line}\n`);
  const summaries = await runShowingProgress(engine, names, flags).finally(() => engine.close());
  process.stdout.write(`${formatSummary(summaries)}${formatTraffic(engine.context.client.traffic())}`);
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
  // Every partition and every request in flight listens to it (16 at once per child stream): not
  // the leak Node's warning at 11 listeners suspects.
  setMaxListeners(0, controller.signal);
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

/** Exit code 0: every partition succeeded or was skipped (a skip for a failed parent comes with that failure). */
export function allSucceeded(summaries: readonly PartitionSummary[]): boolean {
  return summaries.every((summary) => summary.result === 'succeeded' || summary.result === 'skipped');
}
