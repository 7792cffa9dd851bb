import type { Command } from 'commander';
import { loadConnection } from '../connections/load-connection.js';
import type { ResetResult, Store } from '../store/store.js';
import { StreamUsageError } from '../store/store-errors.js';
import { checkStreamNames, type Target } from '../sync/select-partitions.js';
import { askOnTerminal } from './ask-on-terminal.js';
import { exitCodes, runCommand, UsageError } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { thousands } from './thousands.js';
import { openCliStore } from './with-cli-store.js';

interface ResetFlags extends ConnectionFlag {
  data?: boolean;
  yes?: boolean;
}

export function registerResetCommand(program: Command): void {
  program
    .command('reset')
    .description(
      'Forget the watermark and checkpoint of streams or partitions (the next run is a full backfill); keeps the data unless --data.',
    )
    .argument('<stream...>', 'streams of the catalogue, or partitions (tasks/1001, invoices/deleted)')
    .option('--data', "also delete the rows: the stream's, or the partition's operator's (asks first)")
    .option('--yes', 'with --data: delete without asking (required where no terminal can ask: cron, CI)')
    .addHelpText(
      'after',
      '\nA partition is reset whether or not it is still configured (tasks/9999 of an operator removed).\n' +
        '--data on a partition that is no operator (invoices/deleted) is refused: it shares its table.\n' +
        '--data asks on a terminal how many rows go; elsewhere it needs --yes (exit 2 without).\n' +
        'A child stream (invoice_lines, ...) is marked to refresh every parent in its next run.',
    )
    .addOption(connectionOption())
    .action((names: string[], flags: ResetFlags) =>
      runCommand('reset', async () => {
        const targets = checkStreamNames(names);
        if (targets.length === 0) throw new UsageError('name at least one stream');
        const settings = await loadConnection(flags.connection);
        const store = await openCliStore(settings);
        try {
          if (flags.data && !flags.yes && !(await confirmed(store, targets))) {
            process.stderr.write('nothing reset\n');
            return exitCodes.failed;
          }
          for (const target of targets) {
            const result = await reset(store, target, flags.data ?? false);
            process.stdout.write(`${describeReset(target, result, flags.data ?? false)}\n`);
          }
        } finally {
          await store.close();
        }
        return exitCodes.ok;
      }),
    );
}

/** Whether the person at the terminal agrees to lose the rows; a UsageError where none can be asked. */
async function confirmed(store: Store, targets: readonly Target[]): Promise<boolean> {
  const counts = await Promise.all(
    targets.map(async (target) => {
      const scope = target.partition ? { scope: target.partition } : {};
      const rows = await store.countRows(target.stream, scope).catch(() => undefined);
      return `${target.label} (${rows === undefined ? 'its' : thousands(rows)} rows)`;
    }),
  );
  const answer = await askOnTerminal(`delete the rows of ${counts.join(', ')} from the store?`);
  if (answer === undefined)
    throw new UsageError(
      `--data deletes the rows of ${targets.map((target) => target.label).join(', ')}: add --yes to confirm (no terminal here to ask)`,
    );
  return answer;
}

function reset(store: Store, target: Target, data: boolean): Promise<ResetResult> {
  const partition = target.partition === undefined ? {} : { partition: target.partition };
  return store.resetState(target.stream, { ...partition, data }).catch((error: unknown) => {
    throw error instanceof StreamUsageError ? new UsageError(error.message) : error;
  });
}

function describeReset(target: Target, result: ResetResult, data: boolean): string {
  const partitions = `${result.partitions} partition${result.partitions === 1 ? '' : 's'}`;
  const rows = data ? `, ${thousands(result.rows)} row${result.rows === 1 ? '' : 's'} deleted` : '';
  return `${target.label}: reset (${partitions}${rows})`;
}
