import type { Command } from 'commander';
import type { SyncRun } from '../store/store.js';
import { checkStreamNames } from '../sync/select-partitions.js';
import { partitionLabel } from '../sync/stream-order.js';
import { runCommand, UsageError } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { formatDuration } from './durations.js';
import { jsonOutput } from './json-output.js';
import { formatTable } from './text-table.js';
import { thousands } from './thousands.js';
import { withCliStore } from './with-cli-store.js';
import { outputWidth, wrapText } from './wrap-text.js';

interface RunsFlags extends ConnectionFlag {
  failed?: boolean;
  limit: string;
  json?: boolean;
}

/** `tms-sync runs`: the run history of `sync_runs`, newest first, without writing SQL. */
export function registerRunsCommand(program: Command): void {
  program
    .command('runs')
    .description(
      'The run history (sync_runs, kept sync.keepRunsDays days), newest first: when each run started, how long it took, how it ended, what it wrote, and the error of a failed one.',
    )
    .argument('[stream]', 'only this stream, or partition (tasks/1001, invoices/deleted)')
    .option('--failed', 'only the runs that failed')
    .option('--limit <n>', 'at most this many', '20')
    .option('--json', 'print JSON')
    .addOption(connectionOption())
    .action((stream: string | undefined, flags: RunsFlags) =>
      runCommand('runs', async () => {
        const limit = Number(flags.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
        const [target] = checkStreamNames(stream === undefined ? [] : [stream]);
        const runs = await withCliStore(flags.connection, (store) =>
          store.listRuns({
            ...(target ? { stream: target.stream } : {}),
            ...(target?.partition !== undefined ? { partition: target.partition } : {}),
            ...(flags.failed ? { result: 'failed' as const } : {}),
            limit,
          }),
        );
        process.stdout.write(flags.json ? jsonOutput(runs) : formatRuns(runs));
        return 0;
      }),
    );
}

/** `0.4s` under a minute, `12m 5s` beyond. */
const took = (seconds: number) => (seconds < 60 ? `${seconds.toFixed(1)}s` : formatDuration(seconds));

/** One line per run; below a failed one, its whole error, wrapped. */
export function formatRuns(runs: readonly SyncRun[], width = outputWidth()): string {
  if (runs.length === 0) return 'no runs\n';
  const rows = runs.map((run) => [
    String(run.id),
    partitionLabel(run),
    run.trigger,
    run.startedAt.toISOString(),
    run.finishedAt ? took((run.finishedAt.getTime() - run.startedAt.getTime()) / 1000) : '',
    run.result,
    thousands(run.pages),
    thousands(run.inserted + run.updated),
    thousands(run.deleted),
  ]);
  const header = ['id', 'stream', 'trigger', 'started', 'took', 'result', 'pages', 'written', 'deleted'];
  return formatTable(header, rows, '', (index) => {
    const run = runs[index]!;
    return run.error && run.result !== 'succeeded' ? wrapText(run.error, width, '    ') : [];
  });
}
