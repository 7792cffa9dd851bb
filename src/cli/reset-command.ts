import type { Command } from 'commander';
import { loadSettings } from '../../config/load-settings.js';
import { StreamUsageError } from '../store/errors.js';
import { openStore } from '../store/open-store.js';
import type { ResetResult } from '../store/store.js';
import { checkStreamNames, type Target } from '../sync/select-partitions.js';
import { runCommand, UsageError } from './cli-failure.js';
import { cliLogger } from './cli-logger.js';

export function registerResetCommand(program: Command): void {
  program
    .command('reset')
    .description(
      'Forget the watermark and checkpoint of streams or partitions (the next run is a full backfill); keeps the data unless --data.',
    )
    .argument('<stream...>', 'streams of the catalogue, or partitions (tasks/1001, invoices/deleted)')
    .option('--data', "also delete the rows: the stream's, or the partition's operator's")
    .addHelpText(
      'after',
      '\nA partition is reset whether or not it is still configured (tasks/9999 of an operator removed).\n' +
        '--data on a partition that is no operator (invoices/deleted) is refused: it shares its table.\n' +
        'A child stream (invoice_lines, ...) is marked to refresh every parent in its next run.',
    )
    .action((names: string[], flags: { data?: boolean }) =>
      runCommand('reset', async () => {
        const targets = checkStreamNames(names);
        if (targets.length === 0) throw new UsageError('name at least one stream');
        const settings = loadSettings();
        const store = await openStore(settings.storeUrl, { logger: cliLogger(settings) });
        try {
          for (const target of targets) {
            const result = await store
              .resetState(target.stream, {
                ...(target.partition === undefined ? {} : { partition: target.partition }),
                data: flags.data ?? false,
              })
              .catch((error: unknown) => {
                throw error instanceof StreamUsageError ? new UsageError(error.message) : error;
              });
            process.stdout.write(`${describeReset(target, result, flags.data ?? false)}\n`);
          }
        } finally {
          await store.close();
        }
        return 0;
      }),
    );
}

function describeReset(target: Target, result: ResetResult, data: boolean): string {
  const partitions = `${result.partitions} partition${result.partitions === 1 ? '' : 's'}`;
  const rows = data
    ? `, ${result.rows.toLocaleString('en-US')} row${result.rows === 1 ? '' : 's'} deleted`
    : '';
  return `${target.label}: reset (${partitions}${rows})`;
}
